#!/usr/bin/env bash
# The Dockerfile's build, without a Docker engine: copies what its build stage copies into a
# scratch directory, runs that stage's RUN lines there with the same commands, then checks that
# every path the runtime stage copies from the build (or the context) exists, and that the
# pruned production tree loads the api's entry module's imports.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/marginal-docker-steps-XXXXXX)
trap 'rm -rf "$work"' EXIT
# The context as Docker sees it: the committed tree (.dockerignore aside, nothing untracked).
git archive HEAD | tar -x -C "$work"
# Build stage: every RUN line between the first FROM and the second, in order.
mapfile -t runs < <(awk '/^FROM /{n++} n==1 && /^RUN /{sub(/^RUN /,""); print}' Dockerfile)
[ ${#runs[@]} -gt 0 ] || { echo "docker-steps: no RUN line found in the build stage" >&2; exit 1; }
for cmd in "${runs[@]}"; do
  echo "docker-steps: RUN $cmd"
  (cd "$work" && bash -c "$cmd")
done
# Runtime stage: COPY --from=build <src> and plain COPY <src> must exist.
awk '/^FROM /{n++} n==2 && /^COPY /{src=$(NF-1); sub(/^\/app\//, "", src); print src}' Dockerfile | while read -r src; do
  [ -e "$work/$src" ] || { echo "docker-steps: the runtime stage copies $src, which the build did not make" >&2; exit 1; }
  echo "docker-steps: present: $src"
done
# The production tree (devDependencies pruned) resolves everything the services import.
(cd "$work" && NODE_ENV=production node --input-type=module -e "
  for (const m of ['./dist/api/component.js', './dist/ingest/component.js', './dist/processor/component.js']) await import(m);
  console.log('docker-steps: the services load with production dependencies only');")
