/* codec/tunnel: IB SNMP Tunneling framing (IBA 16.4, management class
 * 0x08), shared by the gateway's tunnel client and ibsnmp-tunneld. The
 * rules the layout leaves open are ours: docs/tunneling.md.
 *
 *   0   common MAD header (24)     class 0x08, class version 1
 *   24  reserved (32)
 *   56  RAddress (32)              the requester's handle, echoed
 *   60  PayloadLength (8)          octets of PDU in this segment, 1..192
 *   61  SegmentNumber (8)          1..127; bit 7 marks the last
 *   62  SourceLID (16)             the sender's port LID
 *   64  data (192)
 */
#ifndef IBSNMPGW_CODEC_TUNNEL_H
#define IBSNMPGW_CODEC_TUNNEL_H

#include <stddef.h>
#include <stdint.h>

#define TUN_MGMT_CLASS		0x08
#define TUN_CLASS_VERSION	1
#define TUN_METHOD_GET		0x01
#define TUN_METHOD_SEND		0x03	/* SNMPSend */
#define TUN_METHOD_GET_RESP	0x81
#define TUN_ATTR_CLASS_PORT_INFO 0x0001
#define TUN_ATTR_COMMUNITY	0x0010	/* CommunityInfo: 64 octets */
#define TUN_ATTR_PDU		0x0011	/* PduInfo */

#define TUN_MAD_SIZE		256
#define TUN_DATA_OFFS		64
#define TUN_SEG_DATA		192
#define TUN_SEG_LAST		0x80
#define TUN_SEG_MAX		127
/* The largest reassembled PDU: 127 full segments. */
#define TUN_PDU_MAX		(TUN_SEG_MAX * TUN_SEG_DATA)

struct tun_seg {
	uint64_t	 tid;
	uint32_t	 raddr;
	uint16_t	 slid;
	uint8_t		 num;		/* 1..127 */
	uint8_t		 last;
	uint8_t		 len;		/* 1..192 */
	const uint8_t	*data;		/* into the MAD */
};

/* Segments of pdu (len octets) into mads[] (each TUN_MAD_SIZE, zeroed
 * here), Sends of PduInfo with TIDs tid, tid+1, ..., seg octets each
 * (1..192; 192 but under ibsim, which loses MAD octets 224-255 between
 * its clients). Returns the number of segments, or -1 (empty, over 127
 * segments, or more than nmads needed). */
int	tun_encode(uint8_t (*mads)[TUN_MAD_SIZE], size_t nmads,
	    const uint8_t *pdu, size_t len, size_t seg, uint32_t raddr,
	    uint16_t slid, uint64_t tid);
/* One received MAD as a PduInfo segment: 0, or -1 if it is not one
 * (wrong class, version, method or attribute, a length outside 1..192,
 * a segment number outside 1..127, fewer than 256 octets). Any segment
 * may be short: its PayloadLength says how much it carries. */
int	tun_decode(const uint8_t *mad, size_t len, struct tun_seg *s);

/* One PDU being put together. Segments must come in order, 1, 2, ...;
 * anything else ends it (the requester's SNMP retry sends it again). */
struct tun_reasm {
	uint32_t	 raddr;
	uint16_t	 slid;
	uint8_t		 next;		/* segment expected; 0: idle */
	size_t		 len;
	uint8_t		 buf[TUN_PDU_MAX];
};

enum tun_reasm_rc {
	TUN_MORE = 0,		/* taken, more to come */
	TUN_DONE = 1,		/* taken, r->buf[0..len) is the PDU */
	TUN_BAD = -1,		/* not the next segment: the PDU is dropped */
};

void	tun_reasm_reset(struct tun_reasm *r);
/* Add s to r. A segment 1 starts a new PDU (dropping any unfinished
 * one, which tun_reasm_busy() tells beforehand). */
int	tun_reasm_add(struct tun_reasm *r, const struct tun_seg *s);
int	tun_reasm_busy(const struct tun_reasm *r);

/* ClassPortInfo CapabilityMask bits 8-15 are the class's own (IBA
 * 13.4.8.1); IBA 16.4 defines none for this class, so this one is ours
 * (docs/tunneling.md): the agent takes several messages from one
 * requester at once, told apart by RAddress. An agent without it takes
 * one at a time. */
#define TUN_CAP_CONCURRENT	0x0100

/* ClassPortInfo (IBA 13.4.8.1) of a tunnel agent: GetResp to req (its
 * TID and attribute), class version 1, CapabilityMask cap, RespTimeValue
 * resp_time. Returns 0. */
int	tun_encode_cpi_resp(uint8_t *mad, const uint8_t *req, uint16_t cap,
	    uint8_t resp_time);
/* The CapabilityMask of a ClassPortInfo GetResp. */
uint16_t tun_cpi_cap(const uint8_t *mad);
/* A ClassPortInfo Get with TID tid. */
void	tun_encode_cpi_get(uint8_t *mad, uint64_t tid);

#endif
