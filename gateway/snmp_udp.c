/* gw_snmp_udp: the UDP/IPv4 listeners' receive and send, as net-snmp's
 * (snmpUDPBaseDomain.c) but without the two system calls it adds to
 * every datagram: getsockname() after each recvmsg() for a local
 * address that does not change, and getsockopt(SO_BINDTODEVICE) before
 * each sendmsg() for a binding that does not either. Both are asked
 * once here; and datagrams are read up to GW_SNMP_UDP_BATCH at a time. Under
 * load a request is then a sendmsg and a share of one recvmmsg.
 *
 * The datagrams are the same: the reply leaves from the address the
 * request came to (IP_PKTINFO), as net-snmp's does. A socket bound to
 * a device (a VRF) keeps net-snmp's send, which treats that case. */
#define _GNU_SOURCE	/* recvmmsg */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "gateway/conf.h"
#include "gateway/snmp.h"
#include "util/log.h"

#define UDP_MAX	(4 * GW_MAX_LISTEN)	/* listeners, those closing */
#define UDP_BATCH	GW_SNMP_UDP_BATCH
#define UDP_DGRAM	65536		/* the largest UDP datagram, and some */

/* What one recvmmsg() brought and the agent has not yet read. */
struct udp_batch {
	int			 n, next;
	struct mmsghdr		 msg[UDP_BATCH];
	struct iovec		 iov[UDP_BATCH];
	struct sockaddr_in	 from[UDP_BATCH];
	char			 cbuf[UDP_BATCH][CMSG_SPACE(sizeof(
				     struct in_pktinfo))];
	uint8_t			 buf[UDP_BATCH][UDP_DGRAM];
};

struct udp_sock {
	int			 fd;		/* -1: free */
	struct sockaddr_in	 local;		/* as bound */
	struct udp_batch	*b;		/* at the first datagram */
};

static struct udp_sock	 udp_socks[UDP_MAX] = {
	[0 ... UDP_MAX - 1] = { .fd = -1 }
};

static struct udp_sock *
udp_find(int fd)
{
	for (int i = 0; i < UDP_MAX; i++)
		if (udp_socks[i].fd == fd)
			return &udp_socks[i];
	return NULL;
}

/* Up to UDP_BATCH datagrams in one system call: under load the agent
 * then reads them one by one (gw_snmp_udp_pending) without a poll()
 * and a recvmsg() each. */
static int
udp_fill(struct udp_sock *u)
{
	struct udp_batch *b = u->b;
	int n;

	if (b == NULL && (b = u->b = malloc(sizeof(*b))) == NULL)
		return -1;
	memset(b->msg, 0, sizeof(b->msg));
	for (int i = 0; i < UDP_BATCH; i++) {
		b->iov[i] = (struct iovec){ b->buf[i], UDP_DGRAM };
		b->msg[i].msg_hdr.msg_name = &b->from[i];
		b->msg[i].msg_hdr.msg_namelen = sizeof(b->from[i]);
		b->msg[i].msg_hdr.msg_iov = &b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 1;
		b->msg[i].msg_hdr.msg_control = b->cbuf[i];
		b->msg[i].msg_hdr.msg_controllen = sizeof(b->cbuf[i]);
	}
	do
		n = recvmmsg(u->fd, b->msg, UDP_BATCH, MSG_DONTWAIT, NULL);
	while (n == -1 && errno == EINTR);
	b->n = n > 0 ? n : 0;
	b->next = 0;
	return n > 0 ? 0 : -1;
}

static int
udp_recv(netsnmp_transport *t, void *buf, int size, void **opaque,
    int *olen)
{
	struct udp_sock *u = udp_find(t->sock);
	netsnmp_indexed_addr_pair *ap;
	struct msghdr *m;
	struct cmsghdr *cm;
	size_t n;
	int k;

	*opaque = NULL;
	*olen = 0;
	if (u == NULL || (ap = calloc(1, sizeof(*ap))) == NULL)
		return -1;
	/* net-snmp frees it with the packet, as its own. */
	*opaque = ap;
	*olen = sizeof(*ap);
	if ((u->b == NULL || u->b->next == u->b->n) && udp_fill(u) == -1)
		return -1;
	k = u->b->next++;
	m = &u->b->msg[k].msg_hdr;
	n = u->b->msg[k].msg_len;
	if (n > (size_t)size)
		n = (size_t)size;	/* as recvmsg() cuts it */
	memcpy(buf, u->b->buf[k], n);
	ap->remote_addr.sin = u->b->from[k];
	ap->local_addr.sin = u->local;
	for (cm = CMSG_FIRSTHDR(m); cm != NULL; cm = CMSG_NXTHDR(m, cm))
		if (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			ap->local_addr.sin.sin_addr = pi.ipi_addr;
			ap->if_index = pi.ipi_ifindex;
		}
	return (int)n;
}

int
gw_snmp_udp_pending(netsnmp_large_fd_set *fds)
{
	int n = 0;

	for (int i = 0; i < UDP_MAX; i++)
		if (udp_socks[i].fd >= 0 && udp_socks[i].b != NULL &&
		    udp_socks[i].b->next < udp_socks[i].b->n) {
			if (fds != NULL)
				NETSNMP_LARGE_FD_SET(udp_socks[i].fd, fds);
			n++;
		}
	return n;
}

/* One sendmsg, from src through ifindex when given (RFC 3417 3: the
 * answer from the address the request was sent to). */
static ssize_t
udp_sendmsg(int fd, const struct sockaddr_in *to, const void *buf,
    size_t len, const struct in_addr *src, int ifindex)
{
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo))];
	struct iovec iov = { (void *)buf, len };
	struct msghdr m;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_name = (void *)to;
	m.msg_namelen = sizeof(*to);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (src != NULL) {
		struct in_pktinfo pi;
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		memset(&pi, 0, sizeof(pi));
		pi.ipi_ifindex = ifindex;
		pi.ipi_spec_dst = *src;
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	}
	do
		n = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	return n;
}

static int
udp_send(netsnmp_transport *t, const void *buf, int size, void **opaque,
    int *olen)
{
	const netsnmp_indexed_addr_pair *ap = NULL;
	const struct in_addr *src;
	ssize_t n;

	if (opaque != NULL && *opaque != NULL && olen != NULL &&
	    *olen == (int)sizeof(struct sockaddr_in)) {
		/* An address alone, a form net-snmp's send takes too: the
		 * kernel chooses the source. */
		const struct sockaddr_in *to = *opaque;

		return to->sin_family != AF_INET ? -1 : (int)udp_sendmsg(
		    t->sock, to, buf, (size_t)size, NULL, 0);
	}
	if (opaque != NULL && *opaque != NULL && olen != NULL &&
	    *olen == (int)sizeof(netsnmp_indexed_addr_pair))
		ap = *opaque;
	else if (t->data != NULL &&
	    t->data_length == sizeof(netsnmp_indexed_addr_pair))
		ap = t->data;
	if (ap == NULL || ap->remote_addr.sa.sa_family != AF_INET)
		return -1;
	src = ap->local_addr.sin.sin_addr.s_addr != htonl(INADDR_ANY) ?
	    &ap->local_addr.sin.sin_addr : NULL;
	n = udp_sendmsg(t->sock, &ap->remote_addr.sin, buf, (size_t)size, src,
	    ap->if_index);
	/* A request to a broadcast address: that source is refused; from
	 * the interface alone, then as the kernel chooses (as net-snmp). */
	if (n == -1 && errno == EINVAL && src != NULL) {
		struct in_addr any = { htonl(INADDR_ANY) };

		n = udp_sendmsg(t->sock, &ap->remote_addr.sin, buf,
		    (size_t)size, &any, ap->if_index);
		if (n == -1 && errno == EINVAL)
			n = udp_sendmsg(t->sock, &ap->remote_addr.sin, buf,
			    (size_t)size, NULL, 0);
	}
	return (int)n;
}

void
gw_snmp_udp_tune(netsnmp_transport *t)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	char dev[64];
	socklen_t dl = sizeof(dev);
	struct udp_sock *u = NULL;

	if (t == NULL || t->sock < 0)
		return;
	gw_snmp_udp_forget(t->sock);	/* a closed one's number, reused */
	if (netsnmp_oid_equals(t->domain,
	    t->domain_length, netsnmpUDPDomain, netsnmpUDPDomain_len) != 0 ||
	    getsockname(t->sock, (struct sockaddr *)&sin, &sl) == -1 ||
	    sin.sin_family != AF_INET)
		return;
	for (int i = 0; i < UDP_MAX && u == NULL; i++)
		if (udp_socks[i].fd == -1)
			u = &udp_socks[i];
	if (u == NULL)
		return;		/* net-snmp's own, then */
	u->fd = t->sock;
	u->local = sin;
	t->f_recv = udp_recv;
	if (getsockopt(t->sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &dl) == 0 &&
	    dl == 0)
		t->f_send = udp_send;
}

void
gw_snmp_udp_forget(int fd)
{
	for (int i = 0; i < UDP_MAX; i++)
		if (udp_socks[i].fd == fd) {
			udp_socks[i].fd = -1;
			free(udp_socks[i].b);	/* what it had not read */
			udp_socks[i].b = NULL;
		}
}
