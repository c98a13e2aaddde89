/* attr: the catalogue of the MAD attributes the gateway reads, one row
 * each, as libibmad's ib_mad_f[] is for fields and perf_ctrs[] for
 * counters. A row says what the wire needs (class, ID, length, decoder)
 * and how the gateway treats the attribute: its cache TTL class, whether
 * a node may lack it, and which polling group reads it. The fetch layer,
 * the store, the poller and the MIB tables read the row; none of them
 * spells these facts out again. */
#ifndef IBSNMPGW_CODEC_ATTR_H
#define IBSNMPGW_CODEC_ATTR_H

#include <stddef.h>
#include <stdint.h>

/* Management classes (IBA 13.4.4 Table 118). */
#define ATTR_CLASS_SMI		0x01
#define ATTR_CLASS_SMI_DR	0x81
#define ATTR_CLASS_PERF		0x04

/* Cache TTL classes: each has a key under cache.ttl in the YAML and a
 * default (attr_ttls[]). */
enum attr_ttl {
	ATTR_TTL_NODEINFO,
	ATTR_TTL_NODEDESC,
	ATTR_TTL_PORTINFO,
	ATTR_TTL_SWITCHINFO,
	ATTR_TTL_TABLES,
	ATTR_TTL_FDB,
	ATTR_TTL_COUNTERS,
	ATTR_TTL_SA,		/* SA records (store/sarec.h) */
	ATTR_TTL_ERROR,		/* how long a failed fetch is remembered */
	ATTR_TTL_MAX
};

struct attr_ttl_def {
	const char	*key;		/* cache.ttl.KEY */
	int		 seconds;	/* default */
};
extern const struct attr_ttl_def attr_ttls[ATTR_TTL_MAX];

/* Polling groups (the YAML's polling[].poll list). */
#define ATTR_POLL_NODEINFO	0x01
#define ATTR_POLL_PORTINFO	0x02
#define ATTR_POLL_COUNTERS	0x04
#define ATTR_POLL_ERROR_DETAILS	0x08
#define ATTR_POLL_FORWARDING	0x10
#define ATTR_POLL_VL_COUNTERS	0x20
#define ATTR_POLL_PERF		(ATTR_POLL_COUNTERS | \
	ATTR_POLL_ERROR_DETAILS | ATTR_POLL_VL_COUNTERS)

struct attr_poll_group {
	const char	*name;
	unsigned	 bit;
};
extern const struct attr_poll_group attr_poll_groups[];
extern const size_t attr_npoll_groups;

/* What one read of the attribute covers. */
enum attr_scope {
	ATTR_SCOPE_NODE,	/* modifier 0 */
	ATTR_SCOPE_PORT,	/* modifier: the port (PerfMgt: PortSelect) */
	ATTR_SCOPE_BLOCK	/* modifier: a block of a table */
};

#define ATTR_F_SWITCH	0x01	/* only switches have it */

/* Optional attributes (a live node may lack them, answer "unsupported"
 * or drop them): each has a bit in the inventory's per-node set
 * (nodes.unsupported). The numbers are stored in the database: never
 * renumber one; a new attribute takes the next free bit. */
enum attr_unsup {
	ATTR_UNSUP_NONE			= 0,	/* every node answers it */
	ATTR_UNSUP_VENDOR_DIAG		= 1u << 0,
	ATTR_UNSUP_LED_INFO		= 1u << 1,
	ATTR_UNSUP_SM_INFO		= 1u << 2,
	ATTR_UNSUP_RFT			= 1u << 3,
	ATTR_UNSUP_MFT			= 1u << 4,
	ATTR_UNSUP_GUID_INFO		= 1u << 5,
	ATTR_UNSUP_SL2VL_TABLE		= 1u << 6,
	ATTR_UNSUP_VLARB_TABLE		= 1u << 7,
	ATTR_UNSUP_PKEY_TABLE		= 1u << 8,
	ATTR_UNSUP_FLOW_CTL_COUNTERS	= 1u << 9,
	ATTR_UNSUP_RCV_ERROR_DETAILS	= 1u << 10,
	ATTR_UNSUP_XMIT_DISCARD_DETAILS	= 1u << 11,
	ATTR_UNSUP_VL_OP_PACKETS	= 1u << 12,
	ATTR_UNSUP_VL_OP_DATA		= 1u << 13,
	ATTR_UNSUP_PORT_INFO_EXT	= 1u << 14,
};

enum attr_idx {
	/* SMPs, IBA 14.2.5 Table 145 */
	ATTR_NODE_DESC, ATTR_NODE_INFO, ATTR_SWITCH_INFO, ATTR_GUID_INFO,
	ATTR_PORT_INFO, ATTR_PKEY_TABLE, ATTR_SL2VL_TABLE, ATTR_VLARB_TABLE,
	ATTR_LFT, ATTR_RFT, ATTR_MFT, ATTR_SM_INFO, ATTR_VENDOR_DIAG,
	ATTR_LED_INFO, ATTR_PORT_INFO_EXT,
	/* PerfMgt, IBA 16.1.2 Table 226 */
	ATTR_PERF_CLASS_PORT_INFO, ATTR_PORT_COUNTERS,
	ATTR_RCV_ERROR_DETAILS, ATTR_XMIT_DISCARD_DETAILS,
	ATTR_FLOW_CTL_COUNTERS, ATTR_VL_OP_PACKETS, ATTR_VL_OP_DATA,
	ATTR_PORT_COUNTERS_EXT,
	ATTR_MAX
};

/* A decoder: 0 and *out filled, or -1 when the answer is garbage (a
 * value the IBA rules out), so nothing out of range reaches a PDU. */
typedef int (*attr_decode_fn)(const uint8_t *data, size_t len, void *out);

struct attr_def {
	uint8_t		 mclass;
	uint16_t	 id;
	const char	*name;		/* IBA name: logs, ctl, docs */
	uint8_t		 min_len;	/* octets of data a usable answer has */
	attr_decode_fn	 decode;	/* NULL: read by element accessors */
	enum attr_ttl	 ttl;
	unsigned	 unsup;		/* enum attr_unsup: its bit, or 0 */
	unsigned	 poll;		/* ATTR_POLL_* groups reading it */
	uint8_t		 scope;		/* enum attr_scope */
	uint8_t		 flags;		/* ATTR_F_* */
};

extern const struct attr_def attr_defs[ATTR_MAX];

/* The row of an attribute on the wire, or NULL if not catalogued. */
const struct attr_def	*attr_find(uint8_t mclass, uint16_t id);
/* Its enum attr_idx, or -1. */
int			 attr_index(uint8_t mclass, uint16_t id);
/* The index of (mclass, id) in a catalogue of n rows, or -1: the
 * lookup for IDs past the direct table (vendor attributes). */
int			 attr_search(const struct attr_def *defs, size_t n,
			    uint8_t mclass, uint16_t id);
/* The names of a set of unsup bits, comma-separated ("-" for none). */
const char		*attr_unsup_names(unsigned set, char *buf,
			    size_t len);

#endif
