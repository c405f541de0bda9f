"""JupyterHub for a jxkernel workshop on one machine (`sh scripts/hub.sh`; docs/teaching.md).

Loopback only (http://127.0.0.1:8000). Learners log in with any name and the workshop's shared
password; each gets a JupyterLab server (with jxkernel's extension, from the project's .venv) on
their own copy of the workshop, kept up to date by nbgitpuller (workshop.py), in one home folder
per learner under the hub's data folder. Idle servers are stopped by jupyterhub-idle-culler.

Settings come from the environment, so a teacher changes none of this file:
  JXKERNEL_HUB_PASSWORD       the shared workshop password (8 characters or more), or
  JXKERNEL_HUB_PASSWORD_FILE  a file holding it (scripts/hub.sh makes hub/data/password)
  JXKERNEL_HUB_USERS          optional: the only names allowed in (comma or space separated)
  JXKERNEL_HUB_DATA           the hub's data folder (database, secrets, learners' homes);
                              default hub/data
  JXKERNEL_HUB_PORT           the public port (8000); JXKERNEL_HUB_INTERNAL_PORT (8081) and
                              JXKERNEL_HUB_PROXY_API_PORT (8001) for the hub's and proxy's APIs
  JXKERNEL_HUB_WORKSHOP_REPO  the git repository learners' copies come from (default: this
                              project's own repository, its committed state) and
  JXKERNEL_HUB_WORKSHOP_BRANCH  its branch (default: the branch checked out here)
  JXKERNEL_HUB_MEM_LIMIT / JXKERNEL_HUB_CPU_LIMIT  per-learner limits ("2G", 1)
  JXKERNEL_HUB_CULL_TIMEOUT   seconds of inactivity before a server is stopped (3600)
"""

import os
import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent
ROOT = HUB.parent
sys.path.insert(0, str(HUB))
import workshop  # noqa: E402  (hub/workshop.py: the password and the per-learner copy)

c = get_config()  # noqa: F821  (JupyterHub's config loader defines get_config)
env = os.environ.get

data = Path(env("JXKERNEL_HUB_DATA", HUB / "data")).resolve()
data.mkdir(parents=True, exist_ok=True)
bin_dir = Path(sys.executable).parent  # the .venv the hub runs from

# -- network: loopback only -------------------------------------------------------------------
c.JupyterHub.bind_url = f"http://127.0.0.1:{env('JXKERNEL_HUB_PORT', '8000')}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("JXKERNEL_HUB_INTERNAL_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{env('JXKERNEL_HUB_PROXY_API_PORT', '8001')}"
chp = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
if chp.exists():  # scripts/hub.sh installs it here from npm; otherwise it must be on PATH
    c.ConfigurableHTTPProxy.command = [str(chp)]

# -- state: everything under the data folder --------------------------------------------------
c.JupyterHub.db_url = f"sqlite:///{data / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(data / "jupyterhub_cookie_secret")
# a hub restart (new settings, a crash) leaves learners' servers and kernels running; the hub
# finds them again from its database when it comes back
c.JupyterHub.cleanup_servers = False

# -- who gets in: one shared workshop password, optionally a list of names ---------------------
# JupyterHub's own SharedPasswordAuthenticator (constant-time compare, never admin). For GitHub
# logins instead: pip install oauthenticator and set authenticator_class = "github" (see
# docs/teaching.md).
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = workshop.password()
names = workshop.allowed_names()
if names:
    c.Authenticator.allowed_users = names
else:
    c.Authenticator.allow_all = True

# -- learners' servers ------------------------------------------------------------------------
# One Unix user runs every learner's server (the hub's own): simple and needs no root, but
# learners are separated only by the hub's authentication, not by the operating system (a
# learner's code can read another's files). docs/teaching.md names the isolating spawners.
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = str(data / "users" / "{username}")
c.Spawner.notebook_dir = "~"
c.Spawner.cmd = [str(bin_dir / "jupyterhub-singleuser")]
# A room's kernels start at once, one server per learner. Each server's port cache
# (jupyter_client's LocalPortCache, its issue 487) keeps apart only its own kernels' ports, so
# two servers can hand out the same free port: the later kernel cannot bind it, and with cached
# ports every restart retries that port until the kernel is declared dead (a fresh clone's hub
# test: "Address already in use", 5 restarts, "died"). Uncached, a restart takes new ports.
c.Spawner.args = ["--KernelManager.cache_ports=False"]
if os.geteuid() == 0:  # a container or VM run as root: Jupyter refuses root without this
    c.Spawner.args.append("--allow-root")
c.Spawner.default_url = "/lab/tree/workshop/demos/01_tour.ipynb"
c.Spawner.pre_spawn_hook = workshop.pull_workshop
# Recorded for every spawner; enforced only by those that own a cgroup or container
# (systemdspawner, DockerSpawner, KubeSpawner). SimpleLocalProcessSpawner passes them on as
# MEM_LIMIT / CPU_LIMIT, which JupyterLab's resource indicator shows.
c.Spawner.mem_limit = env("JXKERNEL_HUB_MEM_LIMIT", "2G")
c.Spawner.cpu_limit = float(env("JXKERNEL_HUB_CPU_LIMIT", "1"))
# a room of servers starting at once on a small machine: give them time
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.poll_interval = int(env("JXKERNEL_HUB_POLL_INTERVAL", "30"))

# -- idle culling -----------------------------------------------------------------------------
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={env('JXKERNEL_HUB_CULL_TIMEOUT', '3600')}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
