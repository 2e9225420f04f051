#!/usr/bin/env bash
# Idempotent set-up for aedsl on a fresh Debian 12 machine (run as root, or with sudo available).
#   1. Debian packages (cross toolchains, clang, what building binutils needs)
#   2. msp430-elf binutils built from Debian's binutils-source, cached outside the repo
#   3. a virtualenv at .venv with aedsl installed in editable mode
# A second run only checks stamps and returns in a few seconds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${AEDSL_CACHE:-$HOME/.cache/aedsl}"
MSP430_PREFIX="$CACHE/msp430-elf-binutils"
log() { printf '[bootstrap] %s\n' "$*" >&2; }

# --- 1. Debian packages -------------------------------------------------------------------
DEB_PKGS=(gcc-arm-none-eabi libnewlib-arm-none-eabi clang binutils-source flex bison texinfo
          build-essential python3-venv xz-utils)
missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- 2. msp430-elf binutils from Debian's binutils-source ---------------------------------
if [ ! -x "$MSP430_PREFIX/bin/msp430-elf-as" ] || [ ! -x "$MSP430_PREFIX/bin/msp430-elf-ld" ]; then
  tarball=$(ls /usr/src/binutils/binutils-*.tar.* 2>/dev/null | head -n1)
  [ -n "$tarball" ] || { log "binutils-source tarball not found in /usr/src/binutils"; exit 1; }
  log "building msp430-elf binutils from $tarball (2-3 minutes, once)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tar -C "$work" -xf "$tarball"
  src=$(ls -d "$work"/binutils-*/ | head -n1)
  mkdir -p "$work/build"
  ( cd "$work/build" &&
    "$src/configure" --target=msp430-elf --prefix="$MSP430_PREFIX" --disable-nls --disable-werror \
        --disable-gdb --disable-gdbserver --disable-sim --disable-gprofng --disable-gold \
        --disable-libdecnumber --disable-readline --without-zstd >"$work/configure.log" 2>&1 &&
    make -j"$(nproc)" all-binutils all-gas all-ld >"$work/make.log" 2>&1 &&
    make install-binutils install-gas install-ld >"$work/install.log" 2>&1 ) || {
      log "msp430-elf binutils build failed; last lines of the logs:"; tail -n 30 "$work"/*.log >&2; exit 1; }
  rm -rf "$work"; trap - EXIT
  log "msp430-elf binutils installed in $MSP430_PREFIX"
fi

# --- 3. virtualenv -------------------------------------------------------------------------
VENV="$ROOT/.venv"
stamp="$VENV/.aedsl-stamp"
want=$(cat "$ROOT/pyproject.toml" "$ROOT/setup.py" | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "creating virtualenv in $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip >/dev/null
  "$VENV/bin/pip" install -q -e "$ROOT[test]"
  echo "$want" > "$stamp"
fi

# Build the native simulator cores now, so the first test does not pay for it.
"$VENV/bin/python" -c "import aedsl.sim.native as n; n.build_all()"
