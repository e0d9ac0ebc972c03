# The image the README's Kubernetes example runs: rederive installed from its own Debian
# package (make deb) on a slim Debian, with no Swift toolchain in it.
#   docker build -t registry.example/rederive:0.9.0 .
# CI has no container runtime: it builds, installs, runs and removes the same .deb
# (.ci/package-check), not this image; .ci/dockerfile-deps checks that the build stage installs
# the -dev package of every system library the package links.
# Base images by full version tag (Swift 6.3.1 and Debian 12.11, both bookworm). A tag can be
# moved by its publisher: docs/install.md says how to pin each to its digest (NAME:TAG@sha256:...).

FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libzstd-dev libsqlite3-dev libsimdjson-dev libpq-dev pkg-config dpkg-dev make git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# Only what the build needs (make test's PostgreSQL server is not).
RUN make deb SYSTEM_PACKAGES="libzstd-dev libsqlite3-dev libsimdjson-dev libpq-dev pkg-config"

# The .deb's Depends were derived from the binary against this Debian release's libraries,
# so it runs on the same release. ca-certificates: the trust roots for PostgreSQL over TLS.
FROM debian:12.11-slim
COPY --from=build /src/dist/ /tmp/dist/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates /tmp/dist/rederive_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/dist \
 && useradd --system --uid 10001 --home-dir /work --create-home rederive
USER 10001
WORKDIR /work
ENTRYPOINT ["rederive"]
CMD ["--help"]
