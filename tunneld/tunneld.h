/* ibsnmp-tunneld's modules (docs/tunneling.md):
 *   conf.c            the configuration file (td_conf_*)
 *   guid.c            allow-guids: the LIDs behind port GUIDs, from the
 *                     SA (td_guid_*)
 *   rx.c              the umad fd's reader thread, the lock it shares
 *                     with the main loop, and its wake-up pipe (td_rx_*)
 *   umad.c            the port, its agents, sends, TIDs (td_port_*)
 *   ibsnmp-tunneld.c  main(), the loop, the requesters and the agent
 * Calls run one way: ibsnmp-tunneld.c calls the others, guid.c and rx.c
 * call umad.c. */
#ifndef IBSNMPGW_TUNNELD_H
#define IBSNMPGW_TUNNELD_H

#include <netinet/in.h>
#include <stdint.h>

#include <infiniband/umad.h>

#define TD_MAX_LIDS	64

struct td_conf {
	struct sockaddr_in agent;
	char		 community[65];
	uint16_t	 lids[TD_MAX_LIDS];
	int		 nlids;
	/* allow-guids: port GUIDs, whose LIDs the SA tells (guid.c). */
	uint64_t	 guids[TD_MAX_LIDS];
	int		 nguids;
	char		 ca[UMAD_CA_NAME_LEN];
	int		 port;
	int		 sim_issm;
	int		 max_peers;
	/* Messages of one requester at the agent at once (each on a
	 * socket of its own: the answer's socket names its request). */
	int		 max_requests;
	int		 reasm_ms;
	int		 agent_ms;
	int		 segment;	/* octets per segment */
};

extern struct td_conf td_conf;

uint64_t td_now_ms(void);

/* conf.c: 0, or -1 with the errors printed as file:line. */
int	td_conf_load(const char *path);

/* umad.c: the port and the agents registered on it (-1: none). */
struct td_port {
	int		 fd;
	int		 agent_tun;	/* class 0x08: requests to us */
	int		 agent_sa;	/* allow-guids' SA queries */
	int		 agent_smi, agent_dr;	/* sim-issm only */
	int		 issm_fd;
	uint16_t	 lid;
	uint64_t	 guid;
};
extern struct td_port td_port;

/* Opens td_conf's port and registers the agents: 0, or -1 (logged). */
int	td_port_open(void);
void	td_port_close(void);
/* Send one 256-octet MAD as agent to a umad address; 0 or -1 (logged,
 * rate-limited). qp0: an SMP (no Q_Key). */
int	td_send_mad(int agent, const ib_mad_addr_t *to, const uint8_t *mad,
	    int qp0);
/* A log line for something dropped, at most one per kind every 10 s,
 * with how many were dropped since the last one. */
void	td_drop_log(const char *what, uint16_t lid);
/* n TIDs for MADs we send: the first of them (0: the next, taken by
 * none). */
uint64_t td_tids(int n);

/* guid.c */
int	td_guid_allowed(uint16_t lid);
/* Queries due by now; returns the time of the next one (UINT64_MAX:
 * none). */
uint64_t td_guid_timers(uint64_t now);
/* An SA GetResp (class 0x03): the answer to one of our queries. */
void	td_guid_answer(const uint8_t *mad);

/* rx.c: the umad fd is read by a thread of its own, which handles
 * each MAD with handle() under td_lock; the main loop takes td_lock
 * for its own turns. */
void	td_lock(void);
void	td_unlock(void);
int	td_rx_start(void (*handle)(uint8_t *umad, int len));
/* The pipe the main loop polls: readable after td_rx_poke. */
int	td_rx_wake_fd(void);
/* Async-signal-safe: wake the main loop (a signal came, or its poll
 * set must change). */
void	td_rx_poke(void);
/* When the pipe is readable: read it empty. */
void	td_rx_drain(void);
/* Whether the reader ended on a port error (the loop should exit). */
int	td_rx_failed(void);
/* MADs longer than a MAD the reader dropped (under td_lock). */
unsigned long long td_rx_dropped(void);
/* Stop the reader before exit. agent_dr, the DR SMI agent (-1: none),
 * sends a wake-up SMP to our own port: umad2sim's poll() sees no pipe. */
void	td_rx_stop(int agent_dr);

#endif
