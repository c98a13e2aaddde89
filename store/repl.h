/* store_repl: the HA replication stream's frames and records
 * (docs/ha.md), without I/O, and the pair's status as the MIB and
 * `ctl` show it.
 *
 * A frame: "IBHA", version, type, two zeros, length (be32), seq
 * (be64), four zeros, the payload, and HMAC-SHA256 over the receiver's
 * nonce, the header and the payload. */
#ifndef IBSNMPGW_STORE_REPL_H
#define IBSNMPGW_STORE_REPL_H

#include <stddef.h>
#include <stdint.h>

#define REPL_HDR	24
#define REPL_MAC	32
#define REPL_NONCE	16
#define REPL_MAX_PAYLOAD 65536
#define REPL_KEY_MAX	256

enum repl_type {
	REPL_HELLO = 1,		/* nonce, role, boots, engine ID, name */
	REPL_READY,		/* the connector's proof of the key */
	REPL_SNAP_BEGIN,	/* max event seq */
	REPL_SNAP_END,
	REPL_CTR,		/* counter states */
	REPL_EVENT,		/* one event row */
	REPL_QADD,		/* target, seq */
	REPL_QDEL,
	REPL_QCLEAR,		/* the standby's queues are replaced */
	REPL_BOOTS,
	REPL_BEAT,		/* active: event seq */
	REPL_ACK,		/* standby: the last seq applied */
	REPL_HANDOVER,		/* standby: one event it posted while it
				   was active too (a split brain) */
	REPL_TYPE_MAX
};

/* One direction of one connection. */
struct repl_auth {
	uint8_t		key[REPL_KEY_MAX];
	size_t		keylen;
	uint8_t		nonce[REPL_NONCE];	/* the receiver's */
	uint64_t	seq;			/* the next one */
};

struct repl_frame {
	uint8_t		type;
	uint64_t	seq;
	const uint8_t	*payload;
	size_t		len;
};

/* Appends a frame of payload to *buf (grown as needed; *cap its size),
 * seq a->seq++. -1: no memory. */
int	store_repl_frame_put(struct repl_auth *a, uint8_t type,
	    const void *payload, size_t len, uint8_t **buf, size_t *len_io,
	    size_t *cap);
/* The first frame of buf[0..len): its size (> 0) and *f; 0 when more
 * is needed; -1 and *why when it is refused (bad magic, version,
 * length, MAC, sequence). A HELLO is accepted at seq 0 only. */
long	store_repl_frame_get(struct repl_auth *a, const uint8_t *buf,
	    size_t len, struct repl_frame *f, const char **why);

/* Records: a writer into a fixed buffer and a bounds-checked reader. */
struct repl_w {
	uint8_t		*p;
	size_t		 n, cap;
	int		 over;		/* did not fit */
};
struct repl_r {
	const uint8_t	*p;
	size_t		 n, off;
	int		 bad;		/* read past the end */
};
void	 repl_put8(struct repl_w *w, uint8_t v);
void	 repl_put16(struct repl_w *w, uint16_t v);
void	 repl_put32(struct repl_w *w, uint32_t v);
void	 repl_put64(struct repl_w *w, uint64_t v);
void	 repl_putb(struct repl_w *w, const void *b, size_t n);
/* A string of at most 255 octets: its length, then it. */
void	 repl_puts(struct repl_w *w, const char *s);
/* At most max octets of s (and never more than 255). */
void	 repl_putsn(struct repl_w *w, const char *s, size_t max);
uint8_t	 repl_get8(struct repl_r *r);
uint16_t repl_get16(struct repl_r *r);
uint32_t repl_get32(struct repl_r *r);
uint64_t repl_get64(struct repl_r *r);
void	 repl_getb(struct repl_r *r, void *b, size_t n);
/* Into s (size >= 256), NUL-terminated; an embedded NUL is bad. */
void	 repl_gets(struct repl_r *r, char *s, size_t size);

/* A counter's state (REPL_CTR holds n of them, 26 octets each). */
struct repl_ctr {
	uint64_t	guid;
	uint8_t		port, ctr;
	uint64_t	total, last;
};
#define REPL_CTR_SIZE	26
void	store_repl_ctr_put(struct repl_w *w, const struct repl_ctr *c);
int	store_repl_ctr_get(struct repl_r *r, struct repl_ctr *c);
/* An event record, the whole payload of a REPL_EVENT frame. */
struct store_event;
void	store_repl_event_put(struct repl_w *w, const struct store_event *ev);
int	store_repl_event_get(struct repl_r *r, struct store_event *ev);

/* The pair's state, set by gateway/ha.c, read by the MIB and ctl. */
enum repl_role { REPL_STANDALONE, REPL_ACTIVE, REPL_STANDBY, REPL_FAULT };
struct repl_status {
	enum repl_role	role;
	int		protected;	/* active: a standby has it all */
	int		eligible;	/* may be promoted */
	int		split_brain;
	char		reason[128];	/* why not protected / eligible */
	char		peer[64];	/* its name, or address */
	char		name[64];	/* this gateway's */
	char		previous[64];	/* the active it took over from */
	uint64_t	lag;		/* frames sent, not acknowledged */
	uint64_t	frames_out, frames_in, refused;
	uint64_t	bytes_out;	/* frames queued, headers and MACs too */
	uint64_t	snapshots, events_dropped;
	int64_t		last_rx_ms;	/* ev_now() of the last frame */
};
struct repl_status *store_repl_status(void);
const char *store_repl_role_name(enum repl_role r);

#endif
