/* proxy_mad: requests to us, not answers (the SA's Reports, the
 * tunnel's Sends, SMInfo under ibsim's IsSM), and our answers to them. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/attr.h"
#include "codec/smp.h"
#include "proxy/mad_int.h"
#include "util/log.h"

/* ibsim with IsSM set: the SM's SubnGet(SMInfo) to our port (IBA
 * 14.4.1) comes to us, and its sweeps wait for the answer. We are no
 * SM: SMInfo of state NOTACTIVE, priority 0 (Table 185). */
static int
answer_sminfo(struct mad_engine *e, const uint8_t *umad, const uint8_t *mad,
    size_t len)
{
	uint8_t resp[PROXY_MAD_SIZE];

	if (!e->issm || len < PROXY_MAD_SIZE ||
	    smp_sminfo_notactive(resp, mad, e->port_guid) == -1)
		return 0;
	return mad_serve_respond(e, umad, resp, PROXY_MAD_SIZE) == 0;
}

/* A request to us (a method without the response bit, IBA 13.4.5), as
 * it came off the port: SMInfo under IsSM is answered here, the rest
 * goes to its class's handler. */
void
mad_handle_request(struct mad_engine *e, uint8_t *umad, int len)
{
	const uint8_t *mad = umad_get_mad(umad);
	size_t mlen = (size_t)len - umad_size();
	proxy_mad_request_fn fn = NULL;
	void *arg = NULL;

	e->st.requests++;
	if (mad[1] == ATTR_CLASS_SMI || mad[1] == ATTR_CLASS_SMI_DR) {
		if (answer_sminfo(e, umad, mad, mlen))
			return;
		e->st.unexpected++;
		log_debug("mad: SMP request method 0x%02x attribute "
		    "0x%02x%02x to us ignored", mad[3], mad[16], mad[17]);
		return;
	}
	for (int i = 0; i < MAD_REQ_CLASSES && fn == NULL; i++)
		if (e->req_fns[i].fn != NULL &&
		    e->req_fns[i].mgmt_class == mad[1]) {
			fn = e->req_fns[i].fn;
			arg = e->req_fns[i].arg;
		}
	if (fn == NULL || fn(arg, umad, mad, mlen) != 0) {
		e->st.unexpected++;
		log_debug("mad: request class 0x%02x method 0x%02x attribute "
		    "0x%02x%02x to us ignored", mad[1], mad[3], mad[16],
		    mad[17]);
	}
}

void
mad_serve_on(struct mad_engine *e, uint8_t mgmt_class,
    proxy_mad_request_fn fn, void *arg)
{
	int free_at = -1;

	for (int i = 0; i < MAD_REQ_CLASSES; i++) {
		if (e->req_fns[i].fn != NULL &&
		    e->req_fns[i].mgmt_class == mgmt_class) {
			e->req_fns[i].fn = fn;
			e->req_fns[i].arg = arg;
			return;
		}
		if (e->req_fns[i].fn == NULL && free_at < 0)
			free_at = i;
	}
	if (fn == NULL)
		return;
	if (free_at < 0)
		fatalx("mad: more than %d request handlers", MAD_REQ_CLASSES);
	e->req_fns[free_at].mgmt_class = mgmt_class;
	e->req_fns[free_at].fn = fn;
	e->req_fns[free_at].arg = arg;
}

uint16_t
proxy_mad_request_slid(const void *req)
{
	return ntohs(umad_get_mad_addr((void *)req)->lid);
}

/* The answer to a request we received (req: its umad, for the address:
 * the requester's LID, QP, SL and P_Key index; IBA 13.5.1.2 answers go
 * back to where the request came from). */
int
mad_serve_respond(struct mad_engine *e, const void *req, const uint8_t *mad,
    size_t len)
{
	const ib_mad_addr_t *from = umad_get_mad_addr((void *)req);
	uint8_t buf[sizeof(struct ib_user_mad) + PROXY_MAD_SIZE];
	int agent;

	if (e->fd < 0 || len > PROXY_MAD_SIZE)
		return -1;
	agent = mad_agent_of(e, mad[1]);
	memset(buf, 0, sizeof(buf));
	umad_set_addr(buf, ntohs(from->lid), ntohl(from->qpn), from->sl,
	    mad[1] == ATTR_CLASS_SMI || mad[1] == ATTR_CLASS_SMI_DR ? 0 :
	    IB_DEFAULT_QP1_QKEY);
	umad_set_pkey(buf, from->pkey_index);
	memcpy(umad_get_mad(buf), mad, len);
	if (umad_send(e->fd, agent, buf, (int)len, 0, 0) < 0) {
		log_warnx("mad: answer to class 0x%02x method 0x%02x not sent",
		    mad[1], mad[3]);
		return -1;
	}
	e->st.responses++;
	return 0;
}
