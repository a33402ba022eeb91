#!/usr/bin/env bash
# Builds the one worktrack image that docker-compose.yml and k8s/ run, with a
# tag that names the source: <package.json version>-<git commit> (plus
# "-dirty" when the work tree has uncommitted changes).
#
#   scripts/image.sh                 build IMAGE:TAG
#   scripts/image.sh --push          build, then push IMAGE:TAG
#   scripts/image.sh --push --k8s    also point k8s/kustomization.yaml at it
#                                    (kustomize edit set image; commit the change)
#
#   IMAGE       repository (default: ghcr.io/worktrack/worktrack, as in k8s/kustomization.yaml)
#   TAG         override the computed tag
#   NODE_IMAGE  override the Dockerfile's Node base image (e.g. pinned to a digest)
#   DOCKER      the client to use (default: docker; podman works too)
# Prints the built reference (IMAGE:TAG) on its last line.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

image="${IMAGE:-ghcr.io/worktrack/worktrack}"
docker="${DOCKER:-docker}"
push=false
k8s=false
for arg in "$@"; do
  case "$arg" in
    --push) push=true ;;
    --k8s) k8s=true ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "image.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

if [ -z "${TAG:-}" ]; then
  version="$(node -p "require('./package.json').version")"
  commit="$(git rev-parse --short=12 HEAD)"
  TAG="$version-$commit"
  if [ -n "$(git status --porcelain --untracked-files=no)" ]; then TAG="$TAG-dirty"; fi
fi
if $k8s && [[ "$TAG" == *-dirty ]]; then
  echo "image.sh: refusing to point k8s/ at a dirty build ($TAG): commit first" >&2
  exit 1
fi
if $k8s && ! $push; then
  echo "image.sh: --k8s needs --push (the cluster pulls the image from $image)" >&2
  exit 2
fi

build_args=(--target runtime --label "org.opencontainers.image.revision=$(git rev-parse HEAD)" \
  --label "org.opencontainers.image.version=$TAG" --label "org.opencontainers.image.source=worktrack")
if [ -n "${NODE_IMAGE:-}" ]; then build_args+=(--build-arg "NODE_IMAGE=$NODE_IMAGE"); fi

# The Dockerfile uses BuildKit cache mounts.
DOCKER_BUILDKIT=1 "$docker" build "${build_args[@]}" -t "$image:$TAG" .
if $push; then "$docker" push "$image:$TAG"; fi
if $k8s; then
  (cd k8s && kustomize edit set image "worktrack=$image:$TAG")
  echo "image.sh: k8s/kustomization.yaml now deploys $image:$TAG" >&2
fi
echo "$image:$TAG"
