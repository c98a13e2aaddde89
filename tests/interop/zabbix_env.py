"""The Zabbix side of tests/interop/zabbix.py: its packages, a private
PostgreSQL cluster with the Zabbix schema, zabbix_server and the
frontend's JSON-RPC API, each started and stopped by PID."""
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PGBIN = "/usr/lib/postgresql/15/bin"
SCHEMA = "/usr/share/zabbix-server-pgsql"
FRONTEND = "/usr/share/zabbix"
NEEDED = [PGBIN + "/initdb", PGBIN + "/postgres", "/usr/sbin/zabbix_server",
          FRONTEND + "/api_jsonrpc.php", SCHEMA + "/schema.sql.gz"]


def install():
    """tests/deps.sh's install_interop_deps; exit 77 if it fails."""
    if os.geteuid() != 0:
        print("SKIP: needs root (runs PostgreSQL and zabbix_server as "
              "their own users)")
        sys.exit(77)
    out = subprocess.run(["sh", "-c", '. "$1/tests/deps.sh" && '
                          'install_interop_deps', "sh", TOP],
                         capture_output=True, text=True, timeout=1800)
    missing = [p for p in NEEDED if not os.path.exists(p)]
    if out.returncode != 0 or missing:
        print("SKIP: Zabbix server packages not installable (%s)%s" %
              (", ".join(missing) or "apt-get failed",
               "\n" + out.stderr[-2000:] if out.stderr else ""))
        sys.exit(77)
    for user in ("postgres", "zabbix"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            print("SKIP: no %s user" % user)
            sys.exit(77)


def free_tcp_port(lo=20000, hi=32767):
    """A TCP port of 127.0.0.1 in [lo, hi] nothing listens on
    (zabbix_server's ListenPort must be below 32768)."""
    import random
    for port in random.sample(range(lo, hi + 1), 200):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise RuntimeError("no free TCP port")


def wait(cond, timeout, step=0.5):
    """cond() until it returns something true or timeout seconds pass:
    (its last value, seconds it took)."""
    t0 = time.time()
    while True:
        v = cond()
        if v or time.time() - t0 > timeout:
            return v, time.time() - t0
        time.sleep(step)


class Daemons:
    """Processes this test started, stopped by PID in reverse order."""

    def __init__(self):
        self.procs = []     # (name, Popen, signal)
        self.dir = tempfile.mkdtemp(prefix="ibsnmpgw-zbx-")
        os.chmod(self.dir, 0o755)

    def start(self, name, args, user=None, sig=signal.SIGTERM, **kw):
        log = open(os.path.join(self.dir, name + ".out"), "w")
        p = subprocess.Popen(args, stdout=log, stderr=log,
                             user=user, group=user and pwd.getpwnam(
                                 user).pw_gid, extra_groups=[] if user
                             else None, start_new_session=True, **kw)
        self.procs.append((name, p, sig))
        return p

    def alive(self, name):
        return any(n == name and p.poll() is None
                   for n, p, _ in self.procs)

    def stop(self):
        for name, p, sig in reversed(self.procs):
            if p.poll() is not None:
                continue
            kids = children(p.pid)
            p.send_signal(sig)
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            for k in kids:      # a killed zabbix_server leaves its own
                try:
                    os.kill(k, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.procs = []
        if os.environ.get("KEEP_ZBX_DIR"):
            print("# kept " + self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def children(pid):
    """The PIDs whose parent is pid."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return kids


class Zabbix:
    """PostgreSQL + zabbix_server + the frontend's API, in D.dir."""

    def __init__(self, d):
        self.d = d
        self.pgdir = os.path.join(d.dir, "pg")
        self.zdir = os.path.join(d.dir, "zbx")
        for sub, user in ((self.pgdir, "postgres"), (self.zdir, "zabbix")):
            os.mkdir(sub)
            pw = pwd.getpwnam(user)
            os.chown(sub, pw.pw_uid, pw.pw_gid)
        self.pgport = free_tcp_port()
        self.zport = free_tcp_port()
        self.webport = free_tcp_port()
        self.url = "http://127.0.0.1:%d/api_jsonrpc.php" % self.webport
        self.auth = None

    def psql(self, sql=None, db="postgres", user="postgres", stdin=None):
        args = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h",
                self.pgdir, "-p", str(self.pgport), "-U", user, db]
        if sql:
            args += ["-At", "-c", sql]
        out = subprocess.run(args, stdin=stdin, capture_output=True,
                             text=True, timeout=600)
        if out.returncode:
            raise RuntimeError("psql: " + out.stderr[-1000:])
        return out.stdout.strip()

    def start_db(self):
        data = os.path.join(self.pgdir, "data")
        out = subprocess.run([PGBIN + "/initdb", "-D", data, "-A", "trust",
                              "-U", "postgres", "-E", "UTF8",
                              "--no-locale"], user="postgres",
                             capture_output=True, text=True, timeout=300,
                             cwd=self.pgdir)
        if out.returncode:
            raise RuntimeError("initdb: " + out.stdout + out.stderr)
        # No TCP listener: the unix socket in our directory only. A
        # throw-away cluster: no fsync.
        self.d.start("postgres", [
            PGBIN + "/postgres", "-D", data, "-p", str(self.pgport),
            "-c", "listen_addresses=", "-c",
            "unix_socket_directories=" + self.pgdir, "-c", "fsync=off",
            "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
            user="postgres", sig=signal.SIGINT, cwd=self.pgdir)
        ok, _ = wait(lambda: subprocess.run(
            ["pg_isready", "-q", "-h", self.pgdir, "-p",
             str(self.pgport)]).returncode == 0, 60, 0.2)
        if not ok:
            raise RuntimeError("postgres did not start")
        self.psql("CREATE USER zabbix")
        self.psql("CREATE DATABASE zabbix OWNER zabbix ENCODING 'UTF8' "
                  "TEMPLATE template0")
        for part in ("schema", "images", "data"):
            gz = subprocess.Popen(["zcat", os.path.join(
                SCHEMA, part + ".sql.gz")], stdout=subprocess.PIPE)
            self.psql(db="zabbix", user="zabbix", stdin=gz.stdout)
            gz.wait()
        # Planner statistics for the loaded tables: without them the
        # server's LLD queries took up to 87 s each.
        self.psql("ANALYZE", db="zabbix", user="zabbix")

    def start_server(self):
        conf = os.path.join(self.zdir, "zabbix_server.conf")
        z = self.zdir
        with open(conf, "w") as f:
            f.write("\n".join([
                "ListenIP=127.0.0.1", "ListenPort=%d" % self.zport,
                "LogFile=%s/zabbix_server.log" % z, "LogFileSize=0",
                "PidFile=%s/zabbix_server.pid" % z, "SocketDir=%s" % z,
                "TmpDir=%s" % z, "DBHost=" + self.pgdir,
                "DBPort=%d" % self.pgport, "DBName=zabbix", "DBUser=zabbix",
                # Few processes (2 shared cores); the configuration cache
                # reread every 2 s so new hosts and items poll at once.
                "StartPollers=2", "StartPollersUnreachable=1",
                "StartPreprocessors=2", "StartLLDProcessors=1",
                "StartTrappers=2", "StartPingers=0", "StartDiscoverers=0",
                "StartHTTPPollers=0", "StartTimers=1", "StartEscalators=1",
                "StartAlerters=1", "StartDBSyncers=1",
                "StartHistoryPollers=1", "StartReportWriters=0",
                "CacheUpdateFrequency=2", "HousekeepingFrequency=0",
                "ProblemHousekeepingFrequency=3600",
                "Timeout=4", "UnreachablePeriod=30", "UnreachableDelay=5",
                "UnavailableDelay=5", "FpingLocation=/usr/bin/fping",
                "LogSlowQueries=3000", ""]))
        self.d.start("zabbix_server", ["/usr/sbin/zabbix_server", "-f",
                                       "-c", conf], user="zabbix",
                     cwd=self.zdir)

    def start_frontend(self):
        """A copy of the frontend whose configuration file is ours
        (Debian's reads /etc/zabbix/zabbix.conf.php, which is the
        machine's), served by php -S."""
        fe = os.path.join(self.d.dir, "frontend")
        subprocess.run(["cp", "-a", FRONTEND, fe], check=True, timeout=120)
        conf = os.path.join(self.d.dir, "zabbix.conf.php")
        cfile = os.path.join(fe, "include/classes/core/CConfigFile.php")
        with open(cfile) as f:
            src = f.read()
        if "/etc/zabbix/zabbix.conf.php" in src:
            src = src.replace("/etc/zabbix/zabbix.conf.php", conf)
        else:       # upstream's layout: conf/zabbix.conf.php
            conf = os.path.join(fe, "conf", "zabbix.conf.php")
        with open(cfile, "w") as f:
            f.write(src)
        with open(conf, "w") as f:
            f.write("""<?php
$DB['TYPE'] = 'POSTGRESQL';
$DB['SERVER'] = '%s';
$DB['PORT'] = '%d';
$DB['DATABASE'] = 'zabbix';
$DB['USER'] = 'zabbix';
$DB['PASSWORD'] = '';
$DB['SCHEMA'] = '';
$DB['ENCRYPTION'] = false;
$DB['KEY_FILE'] = '';
$DB['CERT_FILE'] = '';
$DB['CA_FILE'] = '';
$DB['VERIFY_HOST'] = false;
$DB['CIPHER_LIST'] = '';
$DB['VAULT_URL'] = '';
$DB['VAULT_DB_PATH'] = '';
$DB['VAULT_TOKEN'] = '';
$DB['DOUBLE_IEEE754'] = true;
$ZBX_SERVER = '127.0.0.1';
$ZBX_SERVER_PORT = '%d';
$ZBX_SERVER_NAME = 'ibsnmpgw interop';
$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
""" % (self.pgdir, self.pgport, self.zport))
        self.d.start("php", ["php", "-d", "memory_limit=512M", "-d",
                             "max_execution_time=300", "-d",
                             "post_max_size=32M", "-S",
                             "127.0.0.1:%d" % self.webport, "-t", fe],
                     cwd=fe)
        ver, _ = wait(lambda: self.try_call("apiinfo.version", {}), 60)
        if not ver:
            raise RuntimeError("the API did not answer at " + self.url)
        return ver

    def try_call(self, method, params):
        try:
            return self.call(method, params)
        except (OSError, RuntimeError):
            return None

    def call(self, method, params):
        req = {"jsonrpc": "2.0", "method": method, "params": params,
               "id": 1}
        if self.auth and method not in ("apiinfo.version", "user.login"):
            req["auth"] = self.auth
        r = urllib.request.Request(self.url, json.dumps(req).encode(), {
            "Content-Type": "application/json-rpc"})
        with urllib.request.urlopen(r, timeout=120) as f:
            ans = json.loads(f.read().decode())
        if "error" in ans:
            raise RuntimeError("%s: %s" % (method, ans["error"]))
        return ans["result"]

    def login(self):
        self.auth = self.call("user.login", {"username": "Admin",
                                             "password": "zabbix"})

    def log(self):
        try:
            with open(os.path.join(self.zdir, "zabbix_server.log"),
                      errors="replace") as f:
                return f.read()
        except OSError:
            return ""
