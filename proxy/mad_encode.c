/* proxy_mad: encoding requests with libibmad. Pure: the keys come in as
 * arguments, nothing of the engine is read. */
#include "config.h"

#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "proxy/mad_encode.h"

/* A PerfMgt request, the counter poll's MAD, written field by field:
 * the common MAD header (IBA 13.4.2, Table 145) with ClassVersion 1,
 * then the attribute at octet 64 (16.1.1). Octet for octet what
 * mad_build_pkt writes for it (test_smp compares them), without its
 * field-table walk for each header field (~800 instructions a MAD). */
static int
encode_perf(const struct proxy_mad_args *a, uint8_t *buf)
{
	uint8_t *mad = umad_get_mad(buf);

	if (a->data != NULL && a->data_len > PERF_DATA_SIZE)
		return -1;
	umad_set_addr(buf, a->target.lid, 1, 0, IB_DEFAULT_QP1_QKEY);
	mad[0] = 1;				/* BaseVersion */
	mad[1] = ATTR_CLASS_PERF;
	mad[2] = 1;				/* ClassVersion */
	mad[3] = a->method;			/* R and Method */
	mad[15] = 1;				/* TID: set when sent */
	mad[16] = (uint8_t)(a->attr_id >> 8);
	mad[17] = (uint8_t)a->attr_id;
	mad[20] = (uint8_t)(a->attr_mod >> 24);
	mad[21] = (uint8_t)(a->attr_mod >> 16);
	mad[22] = (uint8_t)(a->attr_mod >> 8);
	mad[23] = (uint8_t)a->attr_mod;
	if (a->data != NULL)
		memcpy(mad + PERF_DATA_OFFS, a->data, a->data_len);
	return 0;
}

int
proxy_mad_encode(const struct proxy_mad_args *a, uint64_t mkey,
    uint64_t sa_key, uint8_t *buf)
{
	ib_portid_t pid;
	ib_rpc_t rpc;

	memset(buf, 0, umad_size() + PROXY_MAD_SIZE);
	if (a->raw != NULL) {
		/* LID-routed to QP1 (IBA 13.5.1), as the PMA and the SA. */
		if (a->target.lid == 0)
			return -1;
		umad_set_addr(buf, a->target.lid, 1, 0, IB_DEFAULT_QP1_QKEY);
		memcpy(umad_get_mad(buf), a->raw, PROXY_MAD_SIZE);
		return 0;
	}
	if (a->mgmt_class == ATTR_CLASS_PERF)
		return encode_perf(a, buf);
	memset(&pid, 0, sizeof(pid));
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = a->mgmt_class;
	rpc.method = a->method;
	rpc.attr.id = a->attr_id;
	rpc.attr.mod = a->attr_mod;
	rpc.trid = 1;	/* replaced at send time */
	if (a->mgmt_class == ATTR_CLASS_SMI_DR ||
	    a->mgmt_class == ATTR_CLASS_SMI)
		rpc.mkey = mkey;
	switch (a->mgmt_class) {
	case ATTR_CLASS_SMI_DR:
		if (a->target.path.cnt >= STORE_PATH_MAX)
			return -1;
		pid.drpath.cnt = a->target.path.cnt;
		memcpy(pid.drpath.p, a->target.path.hop,
		    sizeof(a->target.path.hop));
		pid.drpath.drslid = 0xffff;
		pid.drpath.drdlid = 0xffff;
		rpc.dataoffs = SMP_DATA_OFFS;
		break;
	case ATTR_CLASS_SMI:
		pid.lid = a->target.lid;
		rpc.dataoffs = SMP_DATA_OFFS;
		break;
	case ATTR_CLASS_PERF:
		pid.lid = a->target.lid;
		pid.qp = 1;
		pid.qkey = IB_DEFAULT_QP1_QKEY;
		rpc.dataoffs = PERF_DATA_OFFS;
		break;
	case IB_SA_CLASS:
		/* libibmad puts class version 2 and the component mask
		 * (IBA 15.2.1.1 Table 185) in for this class. */
		pid.lid = a->target.lid;
		pid.qp = 1;
		pid.qkey = IB_DEFAULT_QP1_QKEY;
		rpc.dataoffs = IB_SA_DATA_OFFS;
		rpc.mask = a->comp_mask;
		break;
	default:
		return -1;
	}
	if (a->data != NULL && a->data_len > (a->mgmt_class ==
	    ATTR_CLASS_PERF ? PERF_DATA_SIZE : a->mgmt_class == IB_SA_CLASS ?
	    IB_SA_DATA_SIZE : SMP_DATA_SIZE))
		return -1;
	rpc.datasz = a->data ? a->data_len : 0;
	if (a->rmpp_request && a->mgmt_class == IB_SA_CLASS) {
		/* Table 174: one DATA segment, first and last; the payload
		 * is the SA header and the record (the kernel's RMPP layer
		 * rewrites these on hardware). */
		ib_rmpp_hdr_t rmpp = { 0 };

		rmpp.type = IB_RMPP_TYPE_DATA;
		rmpp.flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST |
		    IB_RMPP_FLAG_LAST;
		rmpp.d1.segnum = 1;
		rmpp.d2.len = SA_HEADER_SZ + rpc.datasz;
		if (mad_build_pkt(buf, &rpc, &pid, &rmpp,
		    a->data ? (void *)a->data : NULL) < 0)
			return -1;
	} else if (mad_build_pkt(buf, &rpc, &pid, NULL,
	    a->data ? (void *)a->data : NULL) < 0)
		return -1;
	if (a->mgmt_class == IB_SA_CLASS)
		mad_set_field64(umad_get_mad(buf), 0, IB_SA_MKEY_F,
		    a->sa_trusted ? sa_key : 0);
	return 0;
}
