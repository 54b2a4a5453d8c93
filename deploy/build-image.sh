#!/usr/bin/env bash
# Builds Paiju's one image (deploy/Dockerfile) with the container engine this machine has.
#
#   deploy/build-image.sh [TAG]        (make image; TAG defaults to paiju:<commit>, also paiju:latest)
#
# Docker when its daemon answers, else Podman (with deploy/podman/containers.conf unless
# CONTAINERS_CONF names another). The base is PYTHON_IMAGE (python:3.11-slim-bookworm); when it
# cannot be pulled, an equivalent base is made from Debian's packages with debootstrap
# (localhost/paiju-python:bookworm: python3, python3-venv, ca-certificates) and kept for the next
# build. PIP_CERT (or the system's CA bundle) reaches pip inside the build as a secret.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "image: $*" >&2; }

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  engine=docker
elif command -v podman >/dev/null 2>&1; then
  engine=podman
  export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/podman/containers.conf}"
else
  say "no container engine: install Docker, or Podman and runc (apt-get install podman runc)"
  exit 2
fi

commit="$(git rev-parse --short=12 HEAD 2>/dev/null || echo dev)"
tag="${1:-paiju:$commit}"
base="${PYTHON_IMAGE:-python:3.11-slim-bookworm}"
local_base="${LOCAL_BASE:-localhost/paiju-python:bookworm}"

if ! $engine image inspect "$base" >/dev/null 2>&1; then
  say "pulling $base …"
  if ! timeout 120 $engine pull "$base" >/dev/null 2>&1; then
    say "$base cannot be pulled: using $local_base, made from Debian's packages"
    base="$local_base"
    if ! $engine image inspect "$base" >/dev/null 2>&1; then
      command -v debootstrap >/dev/null 2>&1 || { say "debootstrap is needed (apt-get install debootstrap)"; exit 2; }
      root="$(mktemp -d)"
      trap 'rm -rf "$root"' EXIT
      mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
      say "debootstrap bookworm from $mirror (a few minutes) …"
      debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
        bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -5 "$root.log" >&2; exit 1; }
      rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/usr/share/doc/* \
        "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
      tar -C "$root" -c . | $engine import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
      rm -f "$root.log"
    fi
  fi
fi

cert="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"
secret_file="$(mktemp)"
trap 'rm -f "$secret_file"' EXIT
if [ -s "$cert" ]; then cp "$cert" "$secret_file"; fi

say "building $tag on $base with $engine …"
started=$(date +%s)
$engine build --network host --pull=never -f deploy/Dockerfile \
  --build-arg PYTHON_IMAGE="$base" --secret id=pip_cert,src="$secret_file" \
  -t "$tag" -t paiju:latest .
size=$($engine image inspect "$tag" --format '{{.Size}}')
digest=$($engine image inspect "$tag" --format '{{.Id}}')
say "built $tag in $(( $(date +%s) - started )) s: $(( size / 1000000 )) MB, id ${digest:0:19}"
