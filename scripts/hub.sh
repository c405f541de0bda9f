#!/bin/sh
# A JupyterHub for a workshop room on this machine (docs/teaching.md, "A room on one server").
#   sh scripts/hub.sh
# installs the hub extra (jupyterhub, jupyterhub-idle-culler, nbgitpuller) and the notebook
# extra into .venv, configurable-http-proxy from npm into hub/node_modules, and starts the hub
# on http://127.0.0.1:8000 (loopback only: put a TLS reverse proxy in front to open it to a
# room). The shared password is $JXKERNEL_HUB_PASSWORD, or hub/data/password (made once).
# Ctrl-C stops the hub; learners' servers keep running until the hub stops them or culls them.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check uv
.venv/bin/python -m uv pip install -q --python .venv/bin/python -e '.[notebook,hub]'
if [ ! -x hub/node_modules/.bin/configurable-http-proxy ]; then
    command -v npm >/dev/null || { echo "hub.sh: npm (Node.js) is needed for configurable-http-proxy" >&2; exit 1; }
    npm install --prefix hub --no-audit --no-fund    # hub/package.json and its lock file
fi
# the Binder image's JupyterLab settings for every learner's JupyterLab (binder/overrides.json:
# no news prompt)
mkdir -p .venv/share/jupyter/lab/settings
cp binder/overrides.json .venv/share/jupyter/lab/settings/overrides.json
data=${JXKERNEL_HUB_DATA:-hub/data}
mkdir -p "$data"
if [ -z "$JXKERNEL_HUB_PASSWORD" ] && [ -z "$JXKERNEL_HUB_PASSWORD_FILE" ]; then
    [ -s "$data/password" ] || .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(9))" > "$data/password"
    chmod 600 "$data/password"
    JXKERNEL_HUB_PASSWORD_FILE="$data/password"; export JXKERNEL_HUB_PASSWORD_FILE
fi
password=${JXKERNEL_HUB_PASSWORD:-$(cat "$JXKERNEL_HUB_PASSWORD_FILE")}
echo "Workshop hub: http://127.0.0.1:${JXKERNEL_HUB_PORT:-8000}"
echo "Learners log in with a name of their choice${JXKERNEL_HUB_USERS:+ (one of: $JXKERNEL_HUB_USERS)} and the password: $password"
echo "Each gets JupyterLab on their own copy of the workshop (~/workshop/demos), in $data/users/<name>."
exec .venv/bin/jupyterhub -f hub/jupyterhub_config.py
