/* proxy_linkcheck: what a link should run at (the default rule and the
 * operator's expectation) on PortInfo values real hardware gives and
 * ibsim cannot: ports that enable 4x and train at 1x, EDR ports at
 * QDR, XDR, ports that share no enabled width. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "codec/smp.h"
#include "proxy/linkcheck.h"

/* IBA 14.2.5.6 codes: width 1 1x, 2 4x, 4 8x, 8 12x, 16 2x; speed 1
 * SDR, 2 DDR, 4 QDR; ext 1 FDR, 2 EDR, 4 HDR, 8 NDR. */
static struct smp_portinfo
port(uint8_t w_sup, uint8_t w_en, uint8_t w_act, uint8_t s_en,
    uint8_t s_act, uint8_t x_sup, uint8_t x_en, uint8_t x_act)
{
	struct smp_portinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.state = 4;			/* Active */
	pi.width_supported = w_sup;
	pi.width_enabled = w_en;
	pi.width_active = w_act;
	pi.speed_supported = 7;
	pi.speed_enabled = s_en;
	pi.speed_active = s_act;
	pi.speed_ext_supported = x_sup;
	pi.speed_ext_enabled = x_en;
	pi.speed_ext_active = x_act;
	return pi;
}

/* Both enable 4x, the link trained at 1x: short of the default rule. */
static void
test_enabled_4x_active_1x(void **state)
{
	struct smp_portinfo a = port(0x1f, 3, 1, 7, 4, 0, 0, 0);
	struct smp_portinfo b = port(0x1f, 3, 1, 7, 4, 0, 0, 0);
	struct proxy_link_row r;

	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 1);
	assert_int_equal(r.act_lanes, 1);
	assert_int_equal(r.exp_lanes, 4);
	assert_int_equal(r.act_speed, SMP_SPEED_QDR);
	assert_int_equal(r.exp_speed, SMP_SPEED_QDR);
	assert_int_equal(r.rule_width, LINK_RULE_CAPABILITY);
	/* Trained at 4x it is fine. */
	a.width_active = b.width_active = 2;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 0);
}

/* One end enables 1x only (an admin's ibportstate, or ibsim's w=1):
 * 1x is all both enable, not a fault by default; an expectation of 4x
 * makes it one. */
static void
test_narrowed_end(void **state)
{
	struct smp_portinfo a = port(0x1f, 1, 1, 1, 1, 0, 0, 0);
	struct smp_portinfo b = port(0x1f, 0x0b, 1, 1, 1, 0, 0, 0);
	struct proxy_link_row r;

	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 0);
	assert_int_equal(r.exp_lanes, 1);
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 4, 0, &r), 1);
	assert_int_equal(r.exp_lanes, 4);
	assert_int_equal(r.rule_width, LINK_RULE_EXPECTED);
	assert_int_equal(r.rule_speed, LINK_RULE_CAPABILITY);
	/* An expectation below what it runs at is met. */
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 1, SMP_SPEED_SDR, &r),
	    0);
}

/* EDR enabled at both ends (extended speeds), the link at QDR. */
static void
test_edr_at_qdr(void **state)
{
	struct smp_portinfo a = port(2, 2, 2, 7, 4, 3, 3, 0);
	struct smp_portinfo b = port(2, 2, 2, 7, 4, 7, 3, 0);
	struct proxy_link_row r;
	uint8_t lanes, speed;

	proxy_linkcheck_capability(&a, &b, &lanes, &speed);
	assert_int_equal(lanes, 4);
	assert_int_equal(speed, SMP_SPEED_EDR);
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 1);
	assert_int_equal(r.act_speed, SMP_SPEED_QDR);
	/* HDR supported by one end, enabled by neither: still EDR. */
	a.speed_ext_supported = 7;
	proxy_linkcheck_capability(&a, &b, &lanes, &speed);
	assert_int_equal(speed, SMP_SPEED_EDR);
	/* At EDR it is fine. */
	a.speed_ext_active = b.speed_ext_active = 2;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 0);
}

/* XDR (LinkSpeedExtSupported2) on both ends, the link at NDR. */
static void
test_xdr(void **state)
{
	struct smp_portinfo a = port(2, 2, 2, 1, 1, 0x0f, 0x0f, 8);
	struct smp_portinfo b = a;
	struct proxy_link_row r;

	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 0);
	a.speed_ext2_supported = b.speed_ext2_supported = 1;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 1);
	assert_int_equal(r.exp_speed, SMP_SPEED_XDR);
	assert_int_equal(r.act_speed, SMP_SPEED_NDR);
}

/* Nothing in common (no enabled width both support): no verdict on
 * the width; 12x and 2x in the masks count by lanes. */
static void
test_masks(void **state)
{
	struct smp_portinfo a = port(0x1f, 8, 8, 1, 1, 0, 0, 0);
	struct smp_portinfo b = port(0x1f, 16, 8, 1, 1, 0, 0, 0);
	struct proxy_link_row r;
	uint8_t lanes, speed;

	proxy_linkcheck_capability(&a, &b, &lanes, &speed);
	assert_int_equal(lanes, 0);
	assert_int_equal(speed, SMP_SPEED_SDR);
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 0, 0, &r), 0);
	b.width_enabled = 0x18;		/* 12x and 2x */
	proxy_linkcheck_capability(&a, &b, &lanes, &speed);
	assert_int_equal(lanes, 12);
	a.width_enabled = 0x11;		/* 1x and 2x */
	proxy_linkcheck_capability(&a, &b, &lanes, &speed);
	assert_int_equal(lanes, 2);
}

/* A port that is down, or whose Active fields name nothing IBA
 * defines, is not judged. */
static void
test_not_judged(void **state)
{
	struct smp_portinfo a = port(0x1f, 3, 1, 7, 4, 0, 0, 0);
	struct smp_portinfo b = a;
	struct proxy_link_row r;

	a.state = 1;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 4, 0, &r), 0);
	a.state = 4;
	a.width_active = 0x20;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 4, 0, &r), 0);
	a.width_active = 1;
	a.speed_active = 0;
	assert_int_equal(proxy_linkcheck_judge(&a, &b, 4, 0, &r), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enabled_4x_active_1x),
		cmocka_unit_test(test_narrowed_end),
		cmocka_unit_test(test_edr_at_qdr),
		cmocka_unit_test(test_xdr),
		cmocka_unit_test(test_masks),
		cmocka_unit_test(test_not_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
