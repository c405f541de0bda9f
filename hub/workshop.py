"""The workshop's side of the hub: its shared password and each learner's copy of the notebooks.

`pull_workshop` runs before every learner's server starts (JupyterHub's pre_spawn_hook). It uses
nbgitpuller's own puller, the tool nbgitpuller links run: the first time it clones the workshop
into ~/workshop; later it merges the teacher's newer commits in without overwriting what the
learner changed (a file the learner edited keeps the learner's version; a file they deleted
comes back).
"""

import asyncio
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def password():
    """The shared password: $JXKERNEL_HUB_PASSWORD, or the first line of the file
    $JXKERNEL_HUB_PASSWORD_FILE names."""
    value = os.environ.get("JXKERNEL_HUB_PASSWORD")
    path = os.environ.get("JXKERNEL_HUB_PASSWORD_FILE")
    if not value and path:
        value = Path(path).read_text().strip()
    if not value or len(value) < 8:
        raise SystemExit(
            "hub: set the workshop password (8 characters or more) in JXKERNEL_HUB_PASSWORD, or "
            "name a file holding it in JXKERNEL_HUB_PASSWORD_FILE (scripts/hub.sh makes one)")
    return value


def allowed_names():
    """$JXKERNEL_HUB_USERS as a set of names (empty: any name may log in)."""
    return set(os.environ.get("JXKERNEL_HUB_USERS", "").replace(",", " ").split())


def workshop_source():
    """(git URL, branch) the learners' copies follow: this project, as committed, by default."""
    url = os.environ.get("JXKERNEL_HUB_WORKSHOP_REPO") or ROOT.as_uri()
    branch = os.environ.get("JXKERNEL_HUB_WORKSHOP_BRANCH")
    if not branch:
        branch = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--abbrev-ref", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    return url, branch


def pull(url, branch, repo_dir):
    """Clone or update `repo_dir` from `url` with nbgitpuller; returns its log lines."""
    from nbgitpuller.pull import GitPuller  # only the hub needs nbgitpuller
    return list(GitPuller(url, str(repo_dir), branch=branch, depth=1).pull())


async def pull_workshop(spawner):
    """pre_spawn_hook: make the learner's home and bring ~/workshop up to date."""
    home = Path(spawner.home_dir)
    home.mkdir(parents=True, exist_ok=True)
    url, branch = workshop_source()
    target = home / "workshop"
    try:
        await asyncio.to_thread(pull, url, branch, target)
    except Exception as e:
        if not target.exists():
            raise  # no copy at all: the learner's server would open on nothing
        # an update that cannot merge leaves the learner's copy as it was; their server starts
        spawner.log.warning("workshop update for %s failed, keeping their copy: %s",
                            spawner.user.name, e)
