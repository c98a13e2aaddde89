/* proxy_inform: events from the master SM (IBA 13.4.8): InformInfo
 * subscriptions at its SA, Reports answered and posted to the event
 * stream (store/events.h). */
#ifndef IBSNMPGW_PROXY_INFORM_H
#define IBSNMPGW_PROXY_INFORM_H

#include <stdint.h>

struct proxy_inform_stats {
	uint64_t	 subscriptions;	/* rounds that succeeded */
	uint64_t	 failures;	/* rounds that did not */
	uint64_t	 lost;		/* found gone, or at a former master */
	uint64_t	 reports;	/* Reports answered */
	uint64_t	 malformed;	/* of those, not usable */
	uint64_t	 foreign;	/* Reports not from the SM's LID */
	uint64_t	 master_checks;	/* our port's MasterSMLID read */
	/* InformInfoRecord tables that came in part, without ours in
	 * that part: not taken for a loss. */
	uint64_t	 unverified;
	const char	*state;		/* off, subscribing, up, failed */
	uint16_t	 sm_lid;
};

/* on: subscribe (events.sm-events). Installs the Report handler. */
int	proxy_inform_init(int on);
void	proxy_inform_finalise(void);
/* The process stops: unsubscribe at the SM, then read the SA's records
 * back and unsubscribe any of ours still listed. Returns how many
 * unsubscriptions are out; left(arg) is called once the SA lists none
 * of ours, or no more can be done (not from this call). 0: none (not
 * subscribed). */
unsigned proxy_inform_leave(void (*left)(void *), void *arg);
/* A reload: subscribe, or unsubscribe. */
void	proxy_inform_set(int on);
/* After every sweep: subscribe if not yet (or after a failure), check
 * the subscription is still there at the same master. */
void	proxy_inform_check(void);
/* events.master-check-ms: our own port's MasterSMLID read this often
 * (0: only at light checks and sweeps), to follow an SM failover. */
void	proxy_inform_set_master_check(unsigned ms);
void	proxy_inform_get_stats(struct proxy_inform_stats *st);
/* For the unit tests: an InformInfo (IBA 13.4.8.3 Table 107) of one
 * generic trap into d (36 octets), and a Report as if received (req
 * may be NULL: no answer is sent). 0 if taken, -1 if not a Report. */
void	proxy_inform_encode(uint8_t *d, uint16_t trap, int subscribe);
int	proxy_inform_report(const void *req, const uint8_t *mad, size_t len);

#endif
