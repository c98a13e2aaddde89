/* proxy_inform: the InformInfo layout (IBA 13.4.8.3 Table 107), Reports
 * of traps 65 and 128 become events about the inventory's node and
 * port, and malformed Reports (short, vendor, random octets) become no
 * event and no crash. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>
#include <infiniband/mad.h>

#include "proxy/inform.h"
#include "store/events.h"
#include "store/store.h"
#include "util/ev.h"

#define CA_GUID		0x0002c90300bb0500ULL
#define PORT2_GUID	0x0002c90300bb0502ULL

static char dbpath[64];
static struct store_event heard[32];
static size_t nheard;

static void
listener(const struct store_event *ev, void *arg)
{
	(void)arg;
	if (nheard < sizeof(heard) / sizeof(heard[0]))
		heard[nheard] = *ev;
	nheard++;
}

/* A dual-port CA, both ports Active: LIDs 9 and 10. */
static int
setup(void **state)
{
	struct store_event_conf c = { 64, 30000, 4, 60000, 30000, 0 };
	struct store_node n;
	struct store_port p[3];
	unsigned nodes, lost;

	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-inform-%d.db",
	    getpid());
	unlink(dbpath);
	ev_init();
	assert_int_equal(store_init(dbpath), 0);
	assert_int_equal(store_event_init(&c), 0);
	store_event_listen(listener, NULL);
	nheard = 0;
	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = CA_GUID;
	n.type = STORE_NODE_CA;
	n.num_ports = 2;
	snprintf(n.desc, sizeof(n.desc), "node05 HCA-1");
	store_path_parse("0,1,5", &n.route);
	for (int i = 0; i <= 2; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
		if (i > 0) {
			p[i].valid = 1;
			p[i].state = 4;
			p[i].lid = (uint16_t)(8 + i);
			p[i].guid = CA_GUID + (uint64_t)i;
		}
	}
	store_sweep_begin();
	store_sweep_node(&n, p);
	if (*state != NULL) {
		/* The master SM on port 1, LID 9 (SMInfo 14.2.5.13). */
		struct store_sm sm;

		memset(&sm, 0, sizeof(sm));
		sm.node_guid = CA_GUID;
		sm.port_guid = CA_GUID + 1;
		sm.port = 1;
		sm.sminfo[20] = 0xf3;		/* priority 15, master */
		store_sweep_sm(&sm);
	}
	assert_int_equal(store_sweep_end(&nodes, &lost), 0);
	return 0;
}

static int
setup_sm(void **state)
{
	*state = "sm";
	return setup(state);
}

static int
teardown(void **state)
{
	(void)state;
	store_event_finalise();
	store_finalise();
	ev_finalise();
	unlink(dbpath);
	return 0;
}

static void
test_encode(void **state)
{
	uint8_t d[36];

	(void)state;
	proxy_inform_encode(d, 128, 1);
	for (int i = 0; i < 16; i++)
		assert_int_equal(d[i], 0);		/* GID: any */
	assert_int_equal(d[16] << 8 | d[17], 0xffff);	/* LIDRangeBegin */
	assert_int_equal(d[22], 1);			/* IsGeneric */
	assert_int_equal(d[23], 1);			/* Subscribe */
	assert_int_equal(d[24] << 8 | d[25], 0xffff);	/* Type */
	assert_int_equal(d[26] << 8 | d[27], 128);	/* TrapNumber */
	assert_int_equal(d[28] << 16 | d[29] << 8 | d[30], 1);	/* QPN */
	assert_int_equal(d[31] & 0x1f, 19);		/* RespTimeValue */
	assert_int_equal(d[33] << 16 | d[34] << 8 | d[35], 0xffffff);
	proxy_inform_encode(d, 65, 0);
	assert_int_equal(d[23], 0);
	assert_int_equal(d[26] << 8 | d[27], 65);
	assert_int_equal(d[33] << 16 | d[34] << 8 | d[35], 4);	/* the SM */
}

/* A Report(Notice) of trap, data details dd (IBA 13.4.8.2). */
static void
report(uint8_t *mad, uint16_t trap, const uint8_t *dd, size_t ddlen)
{
	memset(mad, 0, 256);
	mad[0] = 1;
	mad[1] = 0x03;
	mad[2] = 2;
	mad[3] = 0x06;
	mad[17] = 0x02;			/* Notice */
	mad[56] = 0x80 | 1;		/* IsGeneric, Type urgent */
	mad[59] = 2;			/* ProducerType: switch */
	mad[60] = (uint8_t)(trap >> 8);
	mad[61] = (uint8_t)trap;
	memcpy(mad + 66, dd, ddlen);
}

static void
test_gid_out_of_service(void **state)
{
	uint8_t mad[256], dd[22] = { 0 };

	(void)state;
	dd[6] = 0xfe;
	dd[7] = 0x80;
	for (int i = 0; i < 8; i++)
		dd[14 + i] = (uint8_t)(PORT2_GUID >> (56 - 8 * i));
	report(mad, 65, dd, sizeof(dd));
	assert_int_equal(proxy_inform_report(NULL, mad, 256), 0);
	assert_int_equal(nheard, 2);
	assert_int_equal(heard[0].type, STORE_EV_TRAP);
	assert_int_equal(heard[0].trap, 65);
	assert_int_equal(heard[0].source, STORE_SRC_SM);
	assert_true(heard[0].node_guid == CA_GUID);
	assert_int_equal(heard[0].port, 2);
	assert_int_equal(heard[0].lid, 10);
	/* the data details as notify.c reads them: data + 9 */
	assert_memory_equal(heard[0].data + 9, dd, sizeof(dd));
	assert_int_equal(heard[1].type, STORE_EV_LINK_DOWN);
	assert_int_equal(heard[1].port, 2);
	assert_int_equal(heard[1].data[0], 1);	/* PortState Down */
	/* The same port again: no news for the link. */
	proxy_inform_report(NULL, mad, 256);
	assert_int_equal(nheard, 2);
}

static void
test_unknown_lid(void **state)
{
	uint8_t mad[256], dd[2] = { 0x12, 0x34 };

	(void)state;
	report(mad, 128, dd, sizeof(dd));
	assert_int_equal(proxy_inform_report(NULL, mad, 256), 0);
	assert_int_equal(nheard, 1);
	assert_int_equal(heard[0].trap, 128);
	assert_int_equal(heard[0].lid, 0x1234);
	assert_true(heard[0].node_guid == 0);
	assert_non_null(strstr(heard[0].text, "not in the inventory"));
}

/* A Report from another LID than the SM's we subscribed at (none
 * here): dropped, not answered, no event, counted. */
static void
test_foreign_report(void **state)
{
	uint8_t umad[512], *mad, dd[2] = { 0x00, 0x03 };
	struct proxy_inform_stats st, st0;

	(void)state;
	memset(umad, 0, sizeof(umad));
	umad_set_addr(umad, 7, 1, 0, IB_DEFAULT_QP1_QKEY);
	mad = umad_get_mad(umad);
	report(mad, 128, dd, sizeof(dd));
	proxy_inform_get_stats(&st0);
	assert_int_equal(proxy_inform_report(umad, mad, 256), 0);
	assert_int_equal(nheard, 0);
	proxy_inform_get_stats(&st);
	assert_int_equal(st.foreign, st0.foreign + 1);
	assert_int_equal(st.reports, st0.reports);
}

/* A Report umad from slid: taken (1) or dropped as foreign (0). */
static int
report_from(uint16_t slid)
{
	uint8_t umad[512], *mad, dd[2] = { 0x00, 0x0a };
	struct proxy_inform_stats st, st0;

	memset(umad, 0, sizeof(umad));
	umad_set_addr(umad, slid, 1, 0, IB_DEFAULT_QP1_QKEY);
	mad = umad_get_mad(umad);
	report(mad, 128, dd, sizeof(dd));
	proxy_inform_get_stats(&st0);
	assert_int_equal(proxy_inform_report(umad, mad, 256), 0);
	proxy_inform_get_stats(&st);
	assert_int_equal(st.foreign + st.reports, st0.foreign +
	    st0.reports + 1);
	return st.reports == st0.reports + 1;
}

/* Before a subscription of our own: a Report from the master SM (a
 * subscription our port holds from before a restart) is taken, one
 * from another port is not. */
static void
test_report_before_subscription(void **state)
{
	(void)state;
	assert_int_equal(report_from(7), 0);
	assert_int_equal(nheard, 0);
	assert_int_equal(report_from(9), 1);
	assert_int_equal(nheard, 1);
	assert_int_equal(heard[0].trap, 128);
	assert_int_equal(heard[0].lid, 10);
	assert_true(heard[0].node_guid == CA_GUID);
}

static void
test_malformed(void **state)
{
	uint8_t mad[256], dd[8] = { 0 };
	struct proxy_inform_stats st;

	(void)state;
	report(mad, 129, dd, sizeof(dd));
	/* Short: answered, no event. */
	assert_int_equal(proxy_inform_report(NULL, mad, 100), 0);
	/* A vendor Notice (IsGeneric 0): answered, no event. */
	mad[56] = 0x01;
	assert_int_equal(proxy_inform_report(NULL, mad, 256), 0);
	assert_int_equal(nheard, 0);
	/* Not a Report of a Notice: not ours. */
	mad[56] = 0x81;
	mad[17] = 0x03;
	assert_int_equal(proxy_inform_report(NULL, mad, 256), -1);
	mad[17] = 0x02;
	mad[3] = 0x86;
	assert_int_equal(proxy_inform_report(NULL, mad, 256), -1);
	proxy_inform_get_stats(&st);
	assert_true(st.malformed >= 2);
	/* Random octets as a Report: whatever they say, no crash. */
	srandom(12345);
	for (int k = 0; k < 20000; k++) {
		for (int i = 0; i < 256; i++)
			mad[i] = (uint8_t)random();
		mad[1] = 0x03;
		mad[3] = 0x06;
		mad[16] = 0;
		mad[17] = 0x02;
		(void)proxy_inform_report(NULL, mad, (size_t)(random() % 257));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test_setup_teardown(test_gid_out_of_service, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_unknown_lid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_foreign_report, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_report_before_subscription,
		    setup_sm, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
