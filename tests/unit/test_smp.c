/* proxy_mad encoding and proxy_smp decoding, including truncated and
 * garbage payloads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "proxy/mad.h"
#include "codec/smp.h"

static void
enc(uint8_t *d, enum MAD_FIELDS f, uint64_t v)
{
	mad_encode_field(d, f, &v);
}

static void
make_nodeinfo(uint8_t *d)
{
	uint32_t v;
	uint64_t g;

	memset(d, 0, 64);
	v = 1; mad_encode_field(d, IB_NODE_BASE_VERS_F, &v);
	v = 1; mad_encode_field(d, IB_NODE_CLASS_VERS_F, &v);
	v = 2; mad_encode_field(d, IB_NODE_TYPE_F, &v);
	v = 36; mad_encode_field(d, IB_NODE_NPORTS_F, &v);
	g = 0x0002c90300aa0001ULL; mad_encode_field(d, IB_NODE_SYSTEM_GUID_F, &g);
	g = 0x0002c90300aa0101ULL; mad_encode_field(d, IB_NODE_GUID_F, &g);
	g = 0x0002c90300aa0101ULL; mad_encode_field(d, IB_NODE_PORT_GUID_F, &g);
	v = 8; mad_encode_field(d, IB_NODE_PARTITION_CAP_F, &v);
	v = 0xcf08; mad_encode_field(d, IB_NODE_DEVID_F, &v);
	v = 0xa1; mad_encode_field(d, IB_NODE_REVISION_F, &v);
	v = 5; mad_encode_field(d, IB_NODE_LOCAL_PORT_F, &v);
	v = 0x2c9; mad_encode_field(d, IB_NODE_VENDORID_F, &v);
}

static void
test_nodeinfo(void **state)
{
	uint8_t d[64];
	struct smp_nodeinfo ni;

	make_nodeinfo(d);
	assert_int_equal(smp_decode_nodeinfo(d, sizeof(d), &ni), 0);
	assert_int_equal(ni.node_type, 2);
	assert_int_equal(ni.num_ports, 36);
	assert_true(ni.node_guid == 0x0002c90300aa0101ULL);
	assert_true(ni.system_image_guid == 0x0002c90300aa0001ULL);
	assert_int_equal(ni.device_id, 0xcf08);
	assert_int_equal(ni.revision, 0xa1);
	assert_int_equal(ni.local_port, 5);
	assert_int_equal(ni.vendor_id, 0x2c9);
	assert_int_equal(ni.partition_cap, 8);
	/* Byte layout is the IBA's (Table 147): NodeGUID at offset 12. */
	assert_int_equal(d[12], 0x00);
	assert_int_equal(d[13], 0x02);
	assert_int_equal(d[19], 0x01);
}

static void
test_nodeinfo_garbage(void **state)
{
	uint8_t d[64];
	struct smp_nodeinfo ni;

	make_nodeinfo(d);
	assert_int_equal(smp_decode_nodeinfo(d, 39, &ni), -1);	/* truncated */
	assert_int_equal(smp_decode_nodeinfo(d, 0, &ni), -1);
	enc(d, IB_NODE_TYPE_F, 0);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	make_nodeinfo(d);
	enc(d, IB_NODE_TYPE_F, 9);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	make_nodeinfo(d);
	enc(d, IB_NODE_NPORTS_F, 0);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	make_nodeinfo(d);
	enc(d, IB_NODE_NPORTS_F, 255);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	make_nodeinfo(d);
	enc(d, IB_NODE_LOCAL_PORT_F, 37);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	make_nodeinfo(d);
	enc(d, IB_NODE_GUID_F, 0);
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
	memset(d, 0xff, sizeof(d));
	assert_int_equal(smp_decode_nodeinfo(d, 64, &ni), -1);
}

static void
make_portinfo(uint8_t *d)
{
	memset(d, 0, 64);
	enc(d, IB_PORT_LID_F, 0x1234);
	enc(d, IB_PORT_LMC_F, 2);
	enc(d, IB_PORT_STATE_F, 4);
	enc(d, IB_PORT_PHYS_STATE_F, 5);
	enc(d, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	enc(d, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
	enc(d, IB_PORT_NEIGHBOR_MTU_F, 5);
	enc(d, IB_PORT_HOQ_LIFE_F, 31);
	enc(d, IB_PORT_CAPMASK_F, 1u << 14);
	enc(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, 2);
}

static void
test_portinfo(void **state)
{
	uint8_t d[64];
	struct smp_portinfo p;

	make_portinfo(d);
	assert_int_equal(smp_decode_portinfo(d, 64, &p), 0);
	assert_int_equal(p.lid, 0x1234);
	assert_int_equal(p.lmc, 2);
	assert_int_equal(p.state, 4);
	assert_int_equal(p.phys_state, 5);
	assert_int_equal(p.width_active, 2);
	assert_int_equal(p.neighbor_mtu, 5);
	assert_int_equal(p.hoq_life, 31);
	assert_int_equal(p.speed_ext_active, 2);	/* EDR */
	/* The LID sits at offset 16 (Table 155). */
	assert_int_equal(d[16], 0x12);
	assert_int_equal(d[17], 0x34);
	assert_int_equal(p.cap_mask, 1u << 14);
}

static void
test_portinfo_garbage(void **state)
{
	uint8_t d[64];
	struct smp_portinfo p;

	make_portinfo(d);
	assert_int_equal(smp_decode_portinfo(d, 63, &p), -1);
	enc(d, IB_PORT_STATE_F, 7);
	assert_int_equal(smp_decode_portinfo(d, 64, &p), -1);
	make_portinfo(d);
	enc(d, IB_PORT_PHYS_STATE_F, 9);
	assert_int_equal(smp_decode_portinfo(d, 64, &p), -1);
}

/* Reference decoders: every field through libibmad's field table
 * (mad_decode_field), as the gateway decoded them before it read the
 * offsets itself, with the same validity checks. */
static uint32_t
ref32(const uint8_t *d, enum MAD_FIELDS f)
{
	uint32_t v = 0;

	mad_decode_field((uint8_t *)d, f, &v);
	return v;
}

static uint64_t
ref64(const uint8_t *d, enum MAD_FIELDS f)
{
	uint64_t v = 0;

	mad_decode_field((uint8_t *)d, f, &v);
	return v;
}

/* w bits at IBA bit offset off (bit 0: the MSB of octet 0), for the
 * fields libibmad has no table entry for. */
static uint32_t
ref_bits(const uint8_t *d, int off, int w)
{
	uint32_t v = 0;

	for (int b = off; b < off + w; b++)
		v = v << 1 | ((d[b / 8] >> (7 - b % 8)) & 1);
	return v;
}

static int
ref_nodeinfo(const uint8_t *d, struct smp_nodeinfo *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = ref32(d, IB_NODE_BASE_VERS_F);
	ni->class_version = ref32(d, IB_NODE_CLASS_VERS_F);
	ni->node_type = ref32(d, IB_NODE_TYPE_F);
	ni->num_ports = ref32(d, IB_NODE_NPORTS_F);
	ni->system_image_guid = ref64(d, IB_NODE_SYSTEM_GUID_F);
	ni->node_guid = ref64(d, IB_NODE_GUID_F);
	ni->port_guid = ref64(d, IB_NODE_PORT_GUID_F);
	ni->partition_cap = ref32(d, IB_NODE_PARTITION_CAP_F);
	ni->device_id = ref32(d, IB_NODE_DEVID_F);
	ni->revision = ref32(d, IB_NODE_REVISION_F);
	ni->local_port = ref32(d, IB_NODE_LOCAL_PORT_F);
	ni->vendor_id = ref32(d, IB_NODE_VENDORID_F);
	if (ni->node_type < 1 || ni->node_type > 3 || ni->num_ports == 0 ||
	    ni->num_ports == 255 || ni->node_guid == 0 ||
	    ni->local_port > ni->num_ports)
		return -1;
	return 0;
}

static int
ref_portinfo(const uint8_t *d, struct smp_portinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->mkey = ref64(d, IB_PORT_MKEY_F);
	pi->gid_prefix = ref64(d, IB_PORT_GID_PREFIX_F);
	pi->lid = ref32(d, IB_PORT_LID_F);
	pi->sm_lid = ref32(d, IB_PORT_SMLID_F);
	pi->cap_mask = ref32(d, IB_PORT_CAPMASK_F);
	pi->diag_code = ref32(d, IB_PORT_DIAG_F);
	pi->mkey_lease = ref32(d, IB_PORT_MKEY_LEASE_F);
	pi->local_port = ref32(d, IB_PORT_LOCAL_PORT_F);
	pi->width_enabled = ref32(d, IB_PORT_LINK_WIDTH_ENABLED_F);
	pi->width_supported = ref32(d, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	pi->width_active = ref32(d, IB_PORT_LINK_WIDTH_ACTIVE_F);
	pi->speed_supported = ref32(d, IB_PORT_LINK_SPEED_SUPPORTED_F);
	pi->state = ref32(d, IB_PORT_STATE_F);
	pi->phys_state = ref32(d, IB_PORT_PHYS_STATE_F);
	pi->link_down_default = ref32(d, IB_PORT_LINK_DOWN_DEF_F);
	pi->mkey_prot = ref32(d, IB_PORT_MKEY_PROT_BITS_F);
	pi->lmc = ref32(d, IB_PORT_LMC_F);
	pi->speed_active = ref32(d, IB_PORT_LINK_SPEED_ACTIVE_F);
	pi->speed_enabled = ref32(d, IB_PORT_LINK_SPEED_ENABLED_F);
	pi->neighbor_mtu = ref32(d, IB_PORT_NEIGHBOR_MTU_F);
	pi->sm_sl = ref32(d, IB_PORT_SMSL_F);
	pi->vl_cap = ref32(d, IB_PORT_VL_CAP_F);
	pi->init_type = ref32(d, IB_PORT_INIT_TYPE_F);
	pi->vl_high_limit = ref32(d, IB_PORT_VL_HIGH_LIMIT_F);
	pi->vl_arb_high_cap = ref32(d, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	pi->vl_arb_low_cap = ref32(d, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	pi->init_type_reply = ref32(d, IB_PORT_INIT_TYPE_REPLY_F);
	pi->mtu_cap = ref32(d, IB_PORT_MTU_CAP_F);
	pi->vl_stall_count = ref32(d, IB_PORT_VL_STALL_COUNT_F);
	pi->hoq_life = ref32(d, IB_PORT_HOQ_LIFE_F);
	pi->oper_vls = ref32(d, IB_PORT_OPER_VLS_F);
	pi->part_enf_in = ref32(d, IB_PORT_PART_EN_INB_F);
	pi->part_enf_out = ref32(d, IB_PORT_PART_EN_OUTB_F);
	pi->filter_raw_in = ref32(d, IB_PORT_FILTER_RAW_INB_F);
	pi->filter_raw_out = ref32(d, IB_PORT_FILTER_RAW_OUTB_F);
	pi->mkey_violations = ref32(d, IB_PORT_MKEY_VIOL_F);
	pi->pkey_violations = ref32(d, IB_PORT_PKEY_VIOL_F);
	pi->qkey_violations = ref32(d, IB_PORT_QKEY_VIOL_F);
	pi->guid_cap = ref32(d, IB_PORT_GUID_CAP_F);
	pi->client_rereg = ref32(d, IB_PORT_CLIENT_REREG_F);
	pi->subnet_timeout = ref32(d, IB_PORT_SUBN_TIMEOUT_F);
	pi->resp_time = ref32(d, IB_PORT_RESP_TIME_VAL_F);
	pi->local_phys_errors = ref32(d, IB_PORT_LOCAL_PHYS_ERR_F);
	pi->overrun_errors = ref32(d, IB_PORT_OVERRUN_ERR_F);
	pi->speed_ext_active = ref32(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	pi->speed_ext_supported = ref32(d, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
	pi->speed_ext_enabled = ref32(d, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
	pi->cap_mask2 = ref32(d, IB_PORT_CAPMASK2_F);
	/* LinkSpeedExtActive2 at bit 449, Supported2 at 451, 2 bits each. */
	pi->speed_ext2_active = ref_bits(d, 449, 2);
	pi->speed_ext2_supported = ref_bits(d, 451, 2);
	if (pi->state > 4 || pi->phys_state > 7 || pi->lmc > 7)
		return -1;
	return 0;
}

/* A fixed-seed xorshift64, so a failure repeats. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
rnd_fill(uint64_t *s, uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)(rnd(s) >> 24);
}

#define SAME(f)	assert_true(got.f == want.f)

/* The direct NodeInfo decoder against libibmad's fields, on random
 * buffers (mostly garbage, so -1 as often as not: the fields are
 * compared either way) and on ones made valid. */
static void
test_nodeinfo_as_libibmad(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int valid = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint8_t d[64];
		struct smp_nodeinfo got, want;
		int rg, rw;

		rnd_fill(&seed, d, sizeof(d));
		if (i & 1) {		/* half of them pass the checks */
			d[2] = 1 + i % 3;
			d[3] = 1 + d[3] % 254;
			d[36] = d[36] % (d[3] + 1);
			d[12] |= 1;
		}
		memset(&got, 0xa5, sizeof(got));
		rg = smp_decode_nodeinfo(d, sizeof(d), &got);
		rw = ref_nodeinfo(d, &want);
		assert_int_equal(rg, rw);
		valid += rg == 0;
		SAME(base_version);
		SAME(class_version);
		SAME(node_type);
		SAME(num_ports);
		SAME(system_image_guid);
		SAME(node_guid);
		SAME(port_guid);
		SAME(partition_cap);
		SAME(device_id);
		SAME(revision);
		SAME(local_port);
		SAME(vendor_id);
	}
	assert_true(valid >= 5000);
}

static void
test_portinfo_as_libibmad(void **state)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	int valid = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint8_t d[64];
		struct smp_portinfo got, want;
		int rg, rw;

		rnd_fill(&seed, d, sizeof(d));
		if (i & 1) {	/* PortState 0..4, PortPhysicalState 0..7 */
			d[32] = (uint8_t)((d[32] & 0xf0) | i % 5);
			d[33] &= 0x7f;
		}
		memset(&got, 0xa5, sizeof(got));
		rg = smp_decode_portinfo(d, sizeof(d), &got);
		rw = ref_portinfo(d, &want);
		assert_int_equal(rg, rw);
		valid += rg == 0;
		SAME(mkey);
		SAME(gid_prefix);
		SAME(lid);
		SAME(sm_lid);
		SAME(cap_mask);
		SAME(diag_code);
		SAME(mkey_lease);
		SAME(local_port);
		SAME(width_enabled);
		SAME(width_supported);
		SAME(width_active);
		SAME(speed_supported);
		SAME(speed_active);
		SAME(speed_enabled);
		SAME(state);
		SAME(phys_state);
		SAME(link_down_default);
		SAME(mkey_prot);
		SAME(lmc);
		SAME(neighbor_mtu);
		SAME(mtu_cap);
		SAME(sm_sl);
		SAME(vl_cap);
		SAME(init_type);
		SAME(vl_high_limit);
		SAME(vl_arb_high_cap);
		SAME(vl_arb_low_cap);
		SAME(init_type_reply);
		SAME(vl_stall_count);
		SAME(hoq_life);
		SAME(oper_vls);
		SAME(part_enf_in);
		SAME(part_enf_out);
		SAME(filter_raw_in);
		SAME(filter_raw_out);
		SAME(mkey_violations);
		SAME(pkey_violations);
		SAME(qkey_violations);
		SAME(guid_cap);
		SAME(client_rereg);
		SAME(subnet_timeout);
		SAME(resp_time);
		SAME(local_phys_errors);
		SAME(overrun_errors);
		SAME(speed_ext_active);
		SAME(speed_ext_supported);
		SAME(speed_ext_enabled);
		SAME(cap_mask2);
		SAME(speed_ext2_active);
		SAME(speed_ext2_supported);
	}
	assert_true(valid >= 4000);
}

static int
ref_switchinfo(const uint8_t *d, struct smp_switchinfo *si)
{
	memset(si, 0, sizeof(*si));
	si->linear_cap = ref32(d, IB_SW_LINEAR_FDB_CAP_F);
	si->random_cap = ref32(d, IB_SW_RANDOM_FDB_CAP_F);
	si->mcast_cap = ref32(d, IB_SW_MCAST_FDB_CAP_F);
	si->linear_top = ref32(d, IB_SW_LINEAR_FDB_TOP_F);
	si->def_port = ref32(d, IB_SW_DEF_PORT_F);
	si->def_mcast_pri = ref32(d, IB_SW_DEF_MCAST_PRIM_F);
	si->def_mcast_notpri = ref32(d, IB_SW_DEF_MCAST_NOT_PRIM_F);
	si->life_time = ref32(d, IB_SW_LIFE_TIME_F);
	si->state_change = ref32(d, IB_SW_STATE_CHANGE_F);
	si->opt_sl2vl = ref32(d, IB_SW_OPT_SLTOVL_MAPPING_F);
	si->lids_per_port = ref32(d, IB_SW_LIDS_PER_PORT_F);
	si->part_enf_cap = ref32(d, IB_SW_PARTITION_ENFORCE_CAP_F);
	si->inb_enf_cap = ref32(d, IB_SW_PARTITION_ENF_INB_F);
	si->outb_enf_cap = ref32(d, IB_SW_PARTITION_ENF_OUTB_F);
	si->filter_raw_inb_cap = ref32(d, IB_SW_FILTER_RAW_INB_F);
	si->filter_raw_outb_cap = ref32(d, IB_SW_FILTER_RAW_OUTB_F);
	si->enhanced_port0 = ref32(d, IB_SW_ENHANCED_PORT0_F);
	si->mcast_top = ref32(d, IB_SW_MCAST_FDB_TOP_F);
	if (si->linear_top >= 0xc000 || (si->linear_cap &&
	    si->linear_top >= si->linear_cap))
		return -1;
	return 0;
}

static void
test_switchinfo_as_libibmad(void **state)
{
	uint64_t seed = 0x5851f42d4c957f2dULL;
	int valid = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint8_t d[64];
		struct smp_switchinfo got, want;
		int rg, rw;

		rnd_fill(&seed, d, sizeof(d));
		if (i & 1)		/* LinearFDBTop below the cap */
			d[6] = d[0] > 0 ? d[0] - 1 : 0;
		memset(&got, 0xa5, sizeof(got));
		rg = smp_decode_switchinfo(d, sizeof(d), &got);
		rw = ref_switchinfo(d, &want);
		assert_int_equal(rg, rw);
		valid += rg == 0;
		SAME(linear_cap);
		SAME(random_cap);
		SAME(mcast_cap);
		SAME(linear_top);
		SAME(def_port);
		SAME(def_mcast_pri);
		SAME(def_mcast_notpri);
		SAME(life_time);
		SAME(state_change);
		SAME(opt_sl2vl);
		SAME(lids_per_port);
		SAME(part_enf_cap);
		SAME(inb_enf_cap);
		SAME(outb_enf_cap);
		SAME(filter_raw_inb_cap);
		SAME(filter_raw_outb_cap);
		SAME(enhanced_port0);
		SAME(mcast_top);
	}
	assert_true(valid >= 3000);
}

static void
test_sminfo_as_libibmad(void **state)
{
	uint64_t seed = 0x14057b7ef767814fULL;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint8_t d[64];
		struct smp_sminfo got, want;

		rnd_fill(&seed, d, sizeof(d));
		memset(&got, 0xa5, sizeof(got));
		assert_int_equal(smp_decode_sminfo(d, sizeof(d), &got), 0);
		memset(&want, 0, sizeof(want));
		want.guid = ref64(d, IB_SMINFO_GUID_F);
		want.sm_key = ref64(d, IB_SMINFO_KEY_F);
		want.act_count = ref32(d, IB_SMINFO_ACT_F);
		want.priority = ref32(d, IB_SMINFO_PRIO_F);
		want.state = ref32(d, IB_SMINFO_STATE_F);
		SAME(guid);
		SAME(sm_key);
		SAME(act_count);
		SAME(priority);
		SAME(state);
	}
}

#undef SAME

static void
test_nodedesc(void **state)
{
	uint8_t d[64];
	char out[65];

	memset(d, 0, sizeof(d));
	memcpy(d, "leaf01\n\x01x", 9);
	smp_decode_nodedesc(d, sizeof(d), out, sizeof(out));
	assert_string_equal(out, "leaf01??x");
	/* 64 octets without a NUL still terminate. */
	memset(d, 'a', sizeof(d));
	smp_decode_nodedesc(d, sizeof(d), out, sizeof(out));
	assert_int_equal(strlen(out), 64);
	smp_decode_nodedesc(d, 3, out, sizeof(out));
	assert_string_equal(out, "aaa");
	/* UTF-8 passes; broken UTF-8 does not (RFC 3629 section 4). */
	memset(d, 0, sizeof(d));
	memcpy(d, "sw\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14);
	smp_decode_nodedesc(d, sizeof(d), out, sizeof(out));
	assert_string_equal(out, "sw\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	memset(d, 0, sizeof(d));
	/* stray continuation, overlong '/', surrogate, > U+10FFFF, C1,
	 * 0xff, a lead byte cut short by the end */
	{
		static const char bad[] = "\x80|\xc0\xaf|\xed\xa0\x80|"
		    "\xf4\x90\x80\x80|\xc2\x85|\xff|\xe2\x82";

		memcpy(d, bad, sizeof(bad) - 1);
	}
	smp_decode_nodedesc(d, sizeof(d), out, sizeof(out));
	assert_string_equal(out, "?|??|???|????|??|?|??");
	/* A character cut by the 64-octet field end. */
	memset(d, 'a', sizeof(d));
	memcpy(d + 62, "\xe2\x82", 2);
	smp_decode_nodedesc(d, sizeof(d), out, sizeof(out));
	assert_int_equal(strlen(out), 64);
	assert_string_equal(out + 62, "??");
	/* And one that does not fit the caller's buffer. */
	memcpy(d, "ab\xe2\x82\xac", 5);
	smp_decode_nodedesc(d, sizeof(d), out, 5);
	assert_string_equal(out, "ab??");
}

static void
test_rates(void **state)
{
	assert_int_equal(smp_width_lanes(2), 4);
	assert_int_equal(smp_width_lanes(8), 12);
	assert_int_equal(smp_width_lanes(3), 0);
	assert_int_equal(smp_width_lanes(16), 2);
	assert_int_equal(smp_width_lanes(4), 8);
	assert_int_equal(smp_width_lanes(1), 1);
}

/* Every IBA speed and width, from PortInfo as an SMA sends it. */
static void
test_speeds(void **state)
{
	static const struct {
		uint32_t speed, ext, ext2_octet, width;
		enum smp_speed want;
		uint64_t mbps;
	} t[] = {
		{ 1, 0, 0, 1, SMP_SPEED_SDR, 2000 },		/* 1x SDR */
		{ 2, 0, 0, 16, SMP_SPEED_DDR, 8000 },		/* 2x DDR */
		{ 4, 0, 0, 8, SMP_SPEED_QDR, 96000 },		/* 12x QDR */
		{ 4, 1, 0, 2, SMP_SPEED_FDR, 54544 },		/* 4x FDR */
		{ 4, 2, 0, 4, SMP_SPEED_EDR, 200000 },		/* 8x EDR */
		{ 4, 4, 0, 2, SMP_SPEED_HDR, 200000 },		/* 4x HDR */
		{ 4, 8, 0, 2, SMP_SPEED_NDR, 400000 },		/* 4x NDR */
		{ 4, 8, 0x20, 2, SMP_SPEED_XDR, 800000 },	/* 4x XDR */
		{ 4, 8, 0x20, 1, SMP_SPEED_XDR, 200000 },	/* 1x XDR */
		{ 0, 0, 0, 2, SMP_SPEED_UNKNOWN, 0 },
	};
	struct smp_portinfo pi;
	uint8_t d[64];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(d, 0, sizeof(d));
		enc(d, IB_PORT_LINK_SPEED_ACTIVE_F, t[i].speed);
		enc(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, t[i].ext);
		enc(d, IB_PORT_LINK_WIDTH_ACTIVE_F, t[i].width);
		enc(d, IB_PORT_STATE_F, 4);
		d[56] = (uint8_t)t[i].ext2_octet;
		assert_int_equal(smp_decode_portinfo(d, sizeof(d), &pi), 0);
		assert_int_equal(smp_speed_active(&pi), t[i].want);
		assert_int_equal(smp_port_rate_mbps(&pi), t[i].mbps);
	}
	/* XDR is octet 56 bits 1-2 (LinkSpeedExtActive2 at bit 449). */
	assert_int_equal(pi.speed_ext2_active, 0);
	assert_string_equal(smp_speed_name(SMP_SPEED_XDR), "XDR");
	assert_string_equal(smp_speed_name(SMP_SPEED_NDR), "NDR");
	/* A port that is down has no active rate, whatever it says. */
	enc(d, IB_PORT_STATE_F, 1);
	enc(d, IB_PORT_LINK_SPEED_ACTIVE_F, 1);
	assert_int_equal(smp_decode_portinfo(d, sizeof(d), &pi), 0);
	assert_int_equal(smp_speed_active(&pi), SMP_SPEED_UNKNOWN);
	assert_int_equal(smp_port_rate_mbps(&pi), 0);
	/* FECModeActive, octets 4-5 of PortInfoExtended. */
	{
		uint16_t fec;

		memset(d, 0, sizeof(d));
		d[5] = 2;
		assert_int_equal(smp_decode_fec_active(d, sizeof(d), &fec), 0);
		assert_int_equal(fec, 2);
		assert_int_equal(smp_decode_fec_active(d, 4, &fec), -1);
	}
}

static void
test_switchinfo(void **state)
{
	uint8_t d[64];
	struct smp_switchinfo si;

	memset(d, 0, sizeof(d));
	enc(d, IB_SW_LINEAR_FDB_CAP_F, 30720);
	enc(d, IB_SW_MCAST_FDB_CAP_F, 1024);
	enc(d, IB_SW_LINEAR_FDB_TOP_F, 116);
	enc(d, IB_SW_LIFE_TIME_F, 18);
	enc(d, IB_SW_PARTITION_ENFORCE_CAP_F, 64);
	enc(d, IB_SW_ENHANCED_PORT0_F, 1);
	assert_int_equal(smp_decode_switchinfo(d, 64, &si), 0);
	assert_int_equal(si.linear_cap, 30720);
	assert_int_equal(si.linear_top, 116);
	assert_int_equal(si.mcast_cap, 1024);
	assert_int_equal(si.life_time, 18);
	assert_int_equal(si.part_enf_cap, 64);
	assert_int_equal(si.enhanced_port0, 1);
	/* Garbage: a top past the unicast range or the capacity. */
	enc(d, IB_SW_LINEAR_FDB_TOP_F, 0xc000);
	assert_int_equal(smp_decode_switchinfo(d, 64, &si), -1);
	enc(d, IB_SW_LINEAR_FDB_TOP_F, 30720);
	assert_int_equal(smp_decode_switchinfo(d, 64, &si), -1);
	enc(d, IB_SW_LINEAR_FDB_TOP_F, 1);
	assert_int_equal(smp_decode_switchinfo(d, 19, &si), -1);
}

static void
test_sminfo(void **state)
{
	uint8_t d[64];
	struct smp_sminfo sm;

	memset(d, 0, sizeof(d));
	enc(d, IB_SMINFO_GUID_F, 0x0002c90300bb0101ULL);
	enc(d, IB_SMINFO_ACT_F, 4227);
	enc(d, IB_SMINFO_PRIO_F, 5);
	enc(d, IB_SMINFO_STATE_F, 3);
	assert_int_equal(smp_decode_sminfo(d, 64, &sm), 0);
	assert_true(sm.guid == 0x0002c90300bb0101ULL);
	assert_int_equal(sm.act_count, 4227);
	assert_int_equal(sm.priority, 5);
	assert_int_equal(sm.state, 3);
	assert_int_equal(smp_decode_sminfo(d, 20, &sm), -1);
}

static void
test_tables(void **state)
{
	uint8_t d[64];
	uint8_t vl, w, lmc, port;
	uint16_t lid;

	memset(d, 0, sizeof(d));
	/* GUIDInfo: 8 GUIDs, big-endian. */
	d[8] = 0x00; d[9] = 0x02; d[15] = 0x42;
	assert_true(smp_guidinfo_guid(d, 1) == 0x0002000000000042ULL);
	/* P_KeyTable: 16-bit keys. */
	d[62] = 0xff; d[63] = 0xff;
	assert_int_equal(smp_pkey(d, 31), 0xffff);
	/* SL-to-VL: SL0 in the high nibble. */
	memset(d, 0, sizeof(d));
	d[0] = 0x01; d[7] = 0xe7;
	assert_int_equal(smp_sl2vl(d, 0), 0);
	assert_int_equal(smp_sl2vl(d, 1), 1);
	assert_int_equal(smp_sl2vl(d, 14), 14);
	assert_int_equal(smp_sl2vl(d, 15), 7);
	/* VL arbitration: reserved bits above the VL are ignored. */
	d[4] = 0xf3; d[5] = 0x40;
	smp_vlarb(d, 2, &vl, &w);
	assert_int_equal(vl, 3);
	assert_int_equal(w, 0x40);
	/* LFT and MFT. */
	d[63] = 0xff;
	assert_int_equal(smp_lft_port(d, 63), 255);
	d[2] = 0x80; d[3] = 0x01;
	assert_int_equal(smp_mft_mask(d, 1), 0x8001);
	/* RFT: LID, valid bit, LMC, port. */
	memset(d, 0, sizeof(d));
	d[4] = 0x12; d[5] = 0x34; d[6] = 0xb0; d[7] = 7;
	assert_int_equal(smp_rft_entry(d, 1, &lid, &lmc, &port), 1);
	assert_int_equal(lid, 0x1234);
	assert_int_equal(lmc, 3);
	assert_int_equal(port, 7);
	assert_int_equal(smp_rft_entry(d, 0, &lid, &lmc, &port), 0);
	/* LedInfo, VendorDiag. */
	d[0] = 0x80;
	assert_true(smp_led_on(d));
	assert_int_equal(smp_vendor_diag_next(d), 0x8000);
}

static void
test_encode_dr(void **state)
{
	uint8_t buf[512];
	struct proxy_mad_args a;
	uint8_t *mad = buf + umad_size();

	memset(&a, 0, sizeof(a));
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.method = SMP_METHOD_GET;
	a.attr_id = SMP_ATTR_PORT_INFO;
	a.attr_mod = 7;
	a.target.path.cnt = 3;
	a.target.path.hop[1] = 1;
	a.target.path.hop[2] = 36;
	a.target.path.hop[3] = 2;
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), 0);
	/* IBA 14.2.1.2 directed-route SMP header. */
	assert_int_equal(mad[0], 1);		/* BaseVersion */
	assert_int_equal(mad[1], 0x81);		/* MgmtClass */
	assert_int_equal(mad[2], 1);		/* ClassVersion */
	assert_int_equal(mad[3], 0x01);		/* Get */
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F), 3);
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F), 0);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), 0x15);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRMOD_F), 7);
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_DRSLID_F), 0xffff);
	assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_DRDLID_F), 0xffff);
	/* No M_Key configured: zero. */
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0);
	/* With one, every SMP carries it. */
	assert_int_equal(proxy_mad_encode(&a, 0x1122334455667788ULL, 0, buf),
	    0);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) ==
	    0x1122334455667788ULL);
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), 0);
	assert_true(mad_get_field64(mad, 0, IB_MAD_MKEY_F) == 0);
	/* InitialPath at offset 128: hop[0] then the ports. */
	assert_int_equal(mad[128 + 1], 1);
	assert_int_equal(mad[128 + 2], 36);
	assert_int_equal(mad[128 + 3], 2);
}

/* The PerfMgt encoder writes what libibmad's mad_build_pkt writes for
 * the same request: Get and Set, with and without data, modifiers. */
static void
test_encode_perf_as_libibmad(void **state)
{
	static const struct { uint8_t method; uint16_t attr; uint32_t mod;
	    int data; } cases[] = {
		{ 0x01, 0x0012, 0, 1 },		/* PortCounters Get */
		{ 0x01, 0x001d, 0, 1 },		/* PortCountersExtended */
		{ 0x02, 0x0012, 0, 1 },		/* a reset: Set */
		{ 0x01, 0x0001, 0, 0 },		/* ClassPortInfo, no data */
		{ 0x01, 0x0036, 0x01020304, 1 },
	};
	uint8_t data[4] = { 0, 7, 0xff, 0xfe };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t got[512], want[512];
		struct proxy_mad_args a;
		ib_portid_t pid;
		ib_rpc_t rpc;

		memset(&a, 0, sizeof(a));
		a.mgmt_class = ATTR_CLASS_PERF;
		a.method = cases[i].method;
		a.attr_id = cases[i].attr;
		a.attr_mod = cases[i].mod;
		a.target.lid = 0x1234;
		if (cases[i].data) {
			a.data = data;
			a.data_len = sizeof(data);
		}
		memset(got, 0xaa, sizeof(got));
		assert_int_equal(proxy_mad_encode(&a, 0, 0, got), 0);
		memset(want, 0, sizeof(want));
		memset(&pid, 0, sizeof(pid));
		memset(&rpc, 0, sizeof(rpc));
		pid.lid = 0x1234;
		pid.qp = 1;
		pid.qkey = IB_DEFAULT_QP1_QKEY;
		rpc.mgtclass = ATTR_CLASS_PERF;
		rpc.method = cases[i].method;
		rpc.attr.id = cases[i].attr;
		rpc.attr.mod = cases[i].mod;
		rpc.trid = 1;
		rpc.dataoffs = 64;
		rpc.datasz = cases[i].data ? sizeof(data) : 0;
		assert_true(mad_build_pkt(want, &rpc, &pid, NULL,
		    cases[i].data ? data : NULL) > 0);
		assert_memory_equal(got, want, umad_size() + 256);
	}
}

/* The SMP encoder's reference: the request built by libibmad's
 * mad_build_pkt, as proxy_mad_encode built SMPs before it wrote them
 * itself. */
static int
smp_by_libibmad(const struct proxy_mad_args *a, uint64_t mkey, uint8_t *buf)
{
	ib_portid_t pid;
	ib_rpc_t rpc;

	memset(buf, 0, umad_size() + 256);
	memset(&pid, 0, sizeof(pid));
	memset(&rpc, 0, sizeof(rpc));
	rpc.mgtclass = a->mgmt_class;
	rpc.method = a->method;
	rpc.attr.id = a->attr_id;
	rpc.attr.mod = a->attr_mod;
	rpc.trid = 1;
	rpc.mkey = mkey;
	if (a->mgmt_class == ATTR_CLASS_SMI_DR) {
		if (a->target.path.cnt >= STORE_PATH_MAX)
			return -1;
		pid.drpath.cnt = a->target.path.cnt;
		memcpy(pid.drpath.p, a->target.path.hop,
		    sizeof(a->target.path.hop));
		pid.drpath.drslid = 0xffff;
		pid.drpath.drdlid = 0xffff;
	} else
		pid.lid = a->target.lid;
	rpc.dataoffs = SMP_DATA_OFFS;
	if (a->data != NULL && a->data_len > SMP_DATA_SIZE)
		return -1;
	rpc.datasz = a->data ? a->data_len : 0;
	if (mad_build_pkt(buf, &rpc, &pid, NULL,
	    a->data ? (void *)a->data : NULL) < 0)
		return -1;
	return 0;
}

static uint64_t
xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The SMP encoder writes what libibmad's mad_build_pkt writes for the
 * same request, the umad address and all 256 octets: random directed
 * routes (garbage past the last hop too, which libibmad copies) and
 * LIDs, Get and Set (and a GetResp now and then, libibmad's response
 * layout), attributes, modifiers, M_Keys, payloads of any length; now
 * and then a path or payload too long, which both refuse. */
static void
test_encode_smp_as_libibmad(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	uint8_t data[256];
	int n_dr = 0, n_lid = 0, n_bad = 0, n_data = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint8_t got[512], want[512];
		struct proxy_mad_args a;
		uint64_t r = xorshift64(&seed), mkey;
		int rc_got, rc_want, hops;

		memset(&a, 0, sizeof(a));
		a.mgmt_class = (r & 3) ? ATTR_CLASS_SMI_DR : ATTR_CLASS_SMI;
		a.method = (r >> 2 & 15) == 0 ? 0x81 :
		    (r >> 6 & 1) ? 0x02 : 0x01;
		a.attr_id = (uint16_t)(r >> 8);
		a.target.lid = (uint16_t)(r >> 24);
		hops = (r >> 40 & 63) == 0 ? (int)(r >> 48 & 0xff) :
		    (int)((r >> 48) % STORE_PATH_MAX);
		a.target.path.cnt = (uint8_t)hops;
		r = xorshift64(&seed);
		a.attr_mod = (uint32_t)r;
		for (int h = 1; h < STORE_PATH_MAX; h++) {
			if (h <= hops || (r >> 32 & 1))
				a.target.path.hop[h] =
				    (uint8_t)xorshift64(&seed);
		}
		mkey = (r >> 33 & 3) == 0 ? 0 : xorshift64(&seed);
		r = xorshift64(&seed);
		if (r & 1) {
			a.data = data;
			a.data_len = (r >> 1 & 31) == 0 ? (uint8_t)(r >> 8) :
			    (uint8_t)((r >> 8) % (SMP_DATA_SIZE + 1));
			for (int k = 0; k < a.data_len; k++)
				data[k] = (uint8_t)xorshift64(&seed);
			n_data++;
		}
		memset(got, 0xaa, sizeof(got));
		memset(want, 0x55, sizeof(want));
		rc_got = proxy_mad_encode(&a, mkey, 0, got);
		rc_want = smp_by_libibmad(&a, mkey, want);
		assert_int_equal(rc_got, rc_want);
		assert_memory_equal(got, want, umad_size() + 256);
		if (rc_got < 0)
			n_bad++;
		else if (a.mgmt_class == ATTR_CLASS_SMI_DR)
			n_dr++;
		else
			n_lid++;
	}
	/* The draw covers each kind. */
	assert_true(n_dr > 5000 && n_lid > 1500 && n_bad > 50 &&
	    n_data > 4000);
}

static void
test_encode_perf_and_bad(void **state)
{
	uint8_t buf[512], data[8] = { 0, 3 };
	struct proxy_mad_args a;
	uint8_t *mad = buf + umad_size();

	memset(&a, 0, sizeof(a));
	a.mgmt_class = ATTR_CLASS_PERF;
	a.method = 1;
	a.attr_id = 0x12;
	a.target.lid = 5;
	a.data = data;
	a.data_len = sizeof(data);
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), 0);
	assert_int_equal(mad[1], 0x04);
	assert_int_equal(mad[64 + 1], 3);	/* PortSelect in the data */
	assert_int_equal(umad_get_mad_addr(buf)->lid, htons(5));
	assert_int_equal(ntohl(umad_get_mad_addr(buf)->qpn), 1);
	a.mgmt_class = 0x42;
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), -1);
	a.mgmt_class = ATTR_CLASS_SMI_DR;
	a.target.path.cnt = STORE_PATH_MAX;
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), -1);
	a.target.path.cnt = 1;
	a.data_len = 200;	/* larger than the SMP data field */
	assert_int_equal(proxy_mad_encode(&a, 0, 0, buf), -1);
}

/* The keys are the caller's: an SA request carries the SM_Key only when
 * trusted (IBA 15.2.1.1), and never the M_Key, which is for SMPs. */
static void
test_encode_sa_key(void **state)
{
	uint8_t buf[512];
	struct proxy_mad_args a;
	uint8_t *mad = buf + umad_size();

	(void)state;
	memset(&a, 0, sizeof(a));
	a.mgmt_class = IB_SA_CLASS;
	a.method = IB_MAD_METHOD_GET_TABLE;
	a.attr_id = 0x0011;			/* NodeRecord */
	a.target.lid = 1;
	assert_int_equal(proxy_mad_encode(&a, 0x1111, 0x2222, buf), 0);
	assert_true(mad_get_field64(mad, 0, IB_SA_MKEY_F) == 0);
	a.sa_trusted = 1;
	assert_int_equal(proxy_mad_encode(&a, 0x1111, 0x2222, buf), 0);
	assert_true(mad_get_field64(mad, 0, IB_SA_MKEY_F) == 0x2222);
	assert_int_equal(mad[1], IB_SA_CLASS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodeinfo),
		cmocka_unit_test(test_nodeinfo_garbage),
		cmocka_unit_test(test_portinfo),
		cmocka_unit_test(test_portinfo_garbage),
		cmocka_unit_test(test_nodeinfo_as_libibmad),
		cmocka_unit_test(test_portinfo_as_libibmad),
		cmocka_unit_test(test_switchinfo_as_libibmad),
		cmocka_unit_test(test_sminfo_as_libibmad),
		cmocka_unit_test(test_nodedesc),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_speeds),
		cmocka_unit_test(test_switchinfo),
		cmocka_unit_test(test_sminfo),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_encode_dr),
		cmocka_unit_test(test_encode_perf_as_libibmad),
		cmocka_unit_test(test_encode_smp_as_libibmad),
		cmocka_unit_test(test_encode_perf_and_bad),
		cmocka_unit_test(test_encode_sa_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
