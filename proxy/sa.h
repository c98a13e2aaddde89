/* proxy_sa: a client of the master SM's Subnet Administration (class
 * 0x03, IBA 15). It reads the records only the SM knows into the
 * store's snapshots (store/sarec.h), through the MAD engine like every
 * other MAD: same caps, rate limit, timeout and retries. */
#ifndef IBSNMPGW_PROXY_SA_H
#define IBSNMPGW_PROXY_SA_H

#include <stddef.h>
#include <stdint.h>

#include "store/sarec.h"

/* SA record sizes (IBA 15.2.5 Tables 198 and 207). */
#define PROXY_SA_MCMEMBER_LEN	52
#define PROXY_SA_SERVICE_LEN	176
#define PROXY_SA_PATH_LEN	64	/* PathRecord, Table 209 */

struct proxy_sa_stats {
	uint64_t	queries, answers, failures;
	uint64_t	truncated;	/* fewer records came than announced */
	uint16_t	sm_lid;		/* where the last query went */
};

/* Hooks the store's snapshots to SA queries. */
int	proxy_sa_init(void);
void	proxy_sa_finalise(void);
/* Query the SA for kind now unless a query is under way, or one failed
 * less than the error TTL ago. */
void	proxy_sa_refresh(enum store_sa_kind kind);
void	proxy_sa_get_stats(struct proxy_sa_stats *st);
/* The master SM's LID (0: unknown); *key: its port GUID, for the MAD
 * engine's per-node queue. */
uint16_t proxy_sa_master_lid(uint64_t *key);
/* The MasterSMLID of the gateway's own port as last read (a sweep, or
 * proxy_sa_check_master): the master SM as the fabric has it now. */
void	proxy_sa_set_master(uint16_t lid);
/* Read the own port's PortInfo (one SMP, IBA 14.2.5.6) and take its
 * MasterSMLID; done(arg) afterwards, whether or not it was answered.
 * Returns -1 if it could not be sent (done is not called). */
int	proxy_sa_check_master(void (*done)(void *), void *arg);
/* SA methods a caller may ask with (IBA 15.2.2 Table 186). */
#define PROXY_SA_GET_TABLE	0x12
#define PROXY_SA_GET_MULTI	0x14	/* sent as an RMPP transfer */

/* A one-off SubnAdmGetTable or SubnAdmGetMulti (IBA 15.4.4, 15.4.5)
 * for the caller: the records
 * answered, or status < 0 (a negative errno; -ENOENT: the SA has no
 * such record). Returns 0, after which cb is called exactly once
 * (possibly before proxy_sa_query returns), or -1 without a call. */
typedef void (*proxy_sa_cb)(void *arg, int status, const uint8_t *recs,
    size_t n, size_t stride, size_t announced);
int	proxy_sa_query(uint8_t method, uint16_t attr, uint64_t comp_mask,
	    const uint8_t *rec, size_t len, size_t min_len, proxy_sa_cb cb,
	    void *arg);
/* Records in one GetTable answer (IBA 15.2.5.2, 13.6.2.3): *n records
 * of *stride octets at *recs; *announced the count the RMPP header
 * promised. 0, or -1 if the answer is not a table of records at least
 * min_len long. Exposed for the unit tests. */
int	proxy_sa_records(const uint8_t *mad, size_t len, size_t min_len,
	    const uint8_t **recs, size_t *n, size_t *stride,
	    size_t *announced);

#endif
