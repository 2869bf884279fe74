#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring (a real
# Secret Service) and a temporary HOME, so that keytar reaches a keychain on a headless
# Linux machine (keytar needs a Secret Service at run time). Sets SVC_MONITOR_REQUIRE_KEYRING=1 so that the CredentialVault
# tests fail, instead of skipping, when no Secret Service answers.
#
#   scripts/with-keyring.sh npx vitest run test/main
#
# Needs the Debian packages dbus (dbus-run-session), dbus-x11 and gnome-keyring.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/with-keyring.sh <command> [args...]" >&2
  exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-keyring: '$tool' not found; install the Debian packages dbus, dbus-x11 and gnome-keyring (npm run setup)" >&2
    exit 2
  fi
done

KEYRING_HOME="$(mktemp -d "${TMPDIR:-/tmp}/svc-monitor-keyring.XXXXXX")"
cleanup() { rm -rf "$KEYRING_HOME"; }
trap cleanup EXIT

export SVC_MONITOR_REQUIRE_KEYRING=1
export SVC_MONITOR_KEYRING_HOME="$KEYRING_HOME"
# The real HOME stays available to the command (npm caches, etc.); only the keyring's
# HOME and XDG folders are temporary.
exec_inner='
  set -e
  export REAL_HOME="$HOME"
  export HOME="$SVC_MONITOR_KEYRING_HOME"
  export XDG_DATA_HOME="$HOME/.local/share" XDG_RUNTIME_DIR="$HOME/run" XDG_CONFIG_HOME="$HOME/.config"
  mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME"
  chmod 700 "$XDG_RUNTIME_DIR"
  eval "$(printf "svc-monitor-test" | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null
  export GNOME_KEYRING_CONTROL
  export HOME="$REAL_HOME"
  "$@"
'
exec dbus-run-session -- bash -c "$exec_inner" with-keyring "$@"
