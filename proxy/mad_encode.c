/* proxy_mad: encoding requests, SMPs and PerfMgt by hand, SA requests
 * with libibmad. Pure: the keys come in as arguments, nothing of the
 * engine is read. */
#include "config.h"

#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/attr.h"
#include "codec/perf.h"
#include "codec/smp.h"
#include "proxy/mad_encode.h"

/* The common MAD header (IBA 13.4.2, Table 145) but Status and the
 * class-specific octets 6-7, with ClassVersion 1 and TID 1 (set when
 * sent), as mad_build_pkt writes it. */
static void
put_header(uint8_t *mad, uint8_t mgmt_class, const struct proxy_mad_args *a)
{
	mad[0] = 1;				/* BaseVersion */
	mad[1] = mgmt_class;
	mad[2] = 1;				/* ClassVersion */
	mad[3] = a->method;			/* R and Method */
	mad[15] = 1;				/* TID: set when sent */
	mad[16] = (uint8_t)(a->attr_id >> 8);
	mad[17] = (uint8_t)a->attr_id;
	mad[20] = (uint8_t)(a->attr_mod >> 24);
	mad[21] = (uint8_t)(a->attr_mod >> 16);
	mad[22] = (uint8_t)(a->attr_mod >> 8);
	mad[23] = (uint8_t)a->attr_mod;
}

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
	put_header(mad, ATTR_CLASS_PERF, a);
	if (a->data != NULL)
		memcpy(mad + PERF_DATA_OFFS, a->data, a->data_len);
	return 0;
}

/* An SMP, LID-routed (class 0x01, IBA 14.2.1.1) or directed route (0x81,
 * 14.2.1.2), written field by field: the common MAD header (13.4.2),
 * M_Key at 24, the attribute at SMP_DATA_OFFS; a directed-route one
 * also has DrSLID and DrDLID at 32 and 34 (0xffff: the permissive LID)
 * and its path at 128 (a response's at 192, with the D bit set and the
 * hop pointer past the last hop). Addressed to QP0, no Q_Key; a
 * directed-route one to the permissive LID. Octet for octet what
 * mad_build_pkt writes for it (test_smp compares them), without its
 * field-table walk (~1,000 instructions an SMP). */
static int
encode_smp(const struct proxy_mad_args *a, uint64_t mkey, uint8_t *buf)
{
	uint8_t *mad = umad_get_mad(buf);
	int dr = a->mgmt_class == ATTR_CLASS_SMI_DR;
	int resp = (a->method & 0x80) != 0;

	if (dr && a->target.path.cnt >= STORE_PATH_MAX)
		return -1;
	if (a->data != NULL && a->data_len > SMP_DATA_SIZE)
		return -1;
	umad_set_addr(buf, dr ? 0xffff : a->target.lid, 0, 0, 0);
	put_header(mad, a->mgmt_class, a);
	if (dr) {
		mad[4] = resp ? 0x80 : 0;	/* D; Status 0 */
		mad[6] = resp ? (uint8_t)(a->target.path.cnt + 1) : 0;
		mad[7] = a->target.path.cnt;	/* HopCount */
	}
	for (int i = 0; i < 8; i++)
		mad[24 + i] = (uint8_t)(mkey >> (56 - 8 * i));
	if (dr) {
		mad[32] = mad[33] = 0xff;	/* DrSLID */
		mad[34] = mad[35] = 0xff;	/* DrDLID */
		/* The whole hop array, as libibmad copies its path. */
		memcpy(mad + (resp ? 192 : 128), a->target.path.hop,
		    sizeof(a->target.path.hop));
	}
	if (a->data != NULL)
		memcpy(mad + SMP_DATA_OFFS, a->data, a->data_len);
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
	if (a->mgmt_class == ATTR_CLASS_SMI_DR ||
	    a->mgmt_class == ATTR_CLASS_SMI)
		return encode_smp(a, mkey, buf);
	memset(&pid, 0, sizeof(pid));
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = a->mgmt_class;
	rpc.method = a->method;
	rpc.attr.id = a->attr_id;
	rpc.attr.mod = a->attr_mod;
	rpc.trid = 1;	/* replaced at send time */
	switch (a->mgmt_class) {
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
	    ATTR_CLASS_PERF ? PERF_DATA_SIZE : IB_SA_DATA_SIZE))
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
