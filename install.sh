#!/usr/bin/env bash
# gateway installer: idempotent, safe to re-run.
#   ./install.sh             install, create the first account and key (first run only), then serve
#   ./install.sh --no-serve  same, but stop before serving (provisioning scripts)
# Environment: GATEWAY_CONFIG, GATEWAY_DATA_DIR, GATEWAY_DATABASE_URL, … as for `gateway` itself;
# GATEWAY_FIRST_ACCOUNT names the first account (default "default").
set -euo pipefail
cd "$(dirname "$0")"

serve=1
for arg in "$@"; do
  case "$arg" in
    --no-serve) serve=0 ;;
    # The header comment, up to its first line that is not a comment (a fixed range of lines
    # printed `set -euo pipefail` once the header shrank).
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

step() { printf '==> %s\n' "$*" >&2; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# 1. Node.js >= 20.19 and the tools that build the SQLite driver from source.
command -v node >/dev/null || die "Node.js is not installed; install Node.js 20.19 or newer"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || die "Node.js $(node -v) is too old; 20.19 or newer is needed"
for tool in npm python3 make g++; do
  command -v "$tool" >/dev/null || die "$tool is missing; on Debian: apt-get install -y build-essential python3"
done

# 2. Dependencies: npm ci only when node_modules is missing or older than package-lock.json
#    (npm ci is slow: the SQLite driver compiles from source).
if [ -f node_modules/.package-lock.json ] && [ ! package-lock.json -nt node_modules/.package-lock.json ] \
   && node -e 'require("sqlite3")' 2>/dev/null; then
  step "dependencies are up to date"
else
  step "installing dependencies (npm ci; the SQLite driver builds from source, about a minute)"
  npm ci --no-audit --no-fund
fi

# 3. Build, when a source is newer than the last build.
if [ -f dist/.build-stamp ] && [ -z "$(find src commands migrations web scripts/build-web.mjs scripts/build-manifest.mjs package.json tsconfig.json -newer dist/.build-stamp -print -quit)" ]; then
  step "build is up to date"
else
  step "building"
  npm run --silent build
fi

# 4. Configuration, only when missing.
config="${GATEWAY_CONFIG:-config/gateway.yaml}"
# The commands printed below reach this install's database only with the same data directory,
# config and database URL as this run (without them ./bin/gateway opens data/gateway.db here):
# they say so.
same_env=""
[ -n "${GATEWAY_DATABASE_URL:-}" ] && same_env+="GATEWAY_DATABASE_URL=$(printf %q "$GATEWAY_DATABASE_URL") "
[ -n "${GATEWAY_DATA_DIR:-}" ] && same_env+="GATEWAY_DATA_DIR=$(printf %q "$GATEWAY_DATA_DIR") "
[ "$config" != "config/gateway.yaml" ] && same_env+="GATEWAY_CONFIG=$(printf %q "$config") "
if [ ! -f "$config" ]; then
  step "writing $config from config/gateway.example.yaml"
  mkdir -p "$(dirname "$config")"
  cp config/gateway.example.yaml "$config"
else
  step "keeping the existing $config"
fi
export GATEWAY_CONFIG="$config"

# 5. Database schema.
step "migrating the database"
./bin/gateway migrate

# 6. First account and key, on the first run only (no account exists yet).
accounts=$(./bin/gateway accounts ls --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.length))')
if [ "$accounts" = "0" ]; then
  name="${GATEWAY_FIRST_ACCOUNT:-default}"
  step "creating the first account \"$name\" and a key with every scope"
  ./bin/gateway accounts create "$name" >/dev/null
  key=$(./bin/gateway keys create --account "$name" --name first --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).key))')
  cat <<MSG

  Your first API key (shown once, never stored; keep it now):

      $key

  Give the account money to spend:  ${same_env}./bin/gateway balance topup --account $name --amount 1000
  List the models:                  curl -s http://127.0.0.1:${GATEWAY_PORT:-8080}/v1/models

MSG
else
  step "accounts already exist: no new account or key created"
fi

if [ "$serve" = "1" ]; then
  step "serving (Ctrl-C stops)"
  exec ./bin/gateway serve
fi
step "done (--no-serve): start with ${same_env}./bin/gateway serve"
