/* proxy_watch: a port read in a transient state is read again until
 * the fabric has settled it (docs/events.md, "Convergence"). */
#ifndef PROXY_WATCH_H
#define PROXY_WATCH_H

#include <stdint.h>

#include "store/store.h"

/* A watched port is read this often at first, then less often after
 * each reading like the one before, up to WATCH_MAX_MS while the SM's
 * Reports flow (the 10 s convergence bound) or discovery.interval when
 * they do not (sweeps then carry the bound). */
#define PROXY_WATCH_MIN_MS	1000
#define PROXY_WATCH_MAX_MS	4000

struct proxy_watch_stats {
	uint64_t	 watched;	/* ports that entered the watch */
	uint64_t	 reads;		/* SMPs asked for by the watch */
	uint64_t	 changes;	/* readings unlike the one before */
	uint64_t	 flapping;	/* handed over by the damping */
	uint64_t	 settled;	/* left it terminal and stable */
	uint64_t	 dropped;	/* left it unroutable or unreachable */
	unsigned	 now;		/* ports being watched */
	unsigned	 longest_s;	/*   the longest of them, seconds */
};

/* read_fn sends one PortInfo read of (guid, port) whose answer comes
 * back through proxy_watch_reading; -1 if the port has no route now.
 * Registers with store/events.c for ports that stopped flapping. */
void	proxy_watch_init(int (*read_fn)(uint64_t guid, uint8_t port));
void	proxy_watch_finalise(void);
/* Whether the SM's Reports flow, and discovery.interval (seconds):
 * how far apart the reads of a port may grow. */
void	proxy_watch_configure(int reports, int interval_s);
/* A reading of port p of node guid, by a sweep, a Report's read or the
 * watch's own. changed: unlike what the inventory had before it. */
void	proxy_watch_reading(uint64_t guid, const struct store_port *p,
	    int changed);
/* Whether a reading is transient: Init or Armed (IBA 7.2.2), waiting
 * for the SM. */
int	proxy_watch_transient(const struct store_port *p);
void	proxy_watch_get_stats(struct proxy_watch_stats *st);

#endif
