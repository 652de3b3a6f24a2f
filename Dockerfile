# syntax=docker/dockerfile:1
# The token-exchange service (server/) as a container image: docs/operations.md#container-image.
#
# Not built on our own machines (they reach no container registry): written against the official
# Deno image's documented layout (a "deno" user, DENO_DIR=/deno-dir, tini as the entrypoint), and
# release/dockerfile_test.ts runs its command and health check outside Docker.

# The Deno the project is tested with (.ci/run). Where the registry is reachable, pin the digest
# too: FROM denoland/deno:debian-2.9.6@sha256:<digest>
FROM denoland/deno:debian-2.9.6

# Listen on every interface of the container (publish the port with -p), on a port the health
# check knows. Environment overrides win over the config file: change them with -e.
ENV DENO_DIR=/deno-dir \
    DENO_NO_UPDATE_CHECK=1 \
    NO_COLOR=1 \
    TOKEN_EXCHANGE__SERVER__HOST=0.0.0.0 \
    TOKEN_EXCHANGE__SERVER__PORT=8080

WORKDIR /app

# Manifests and lockfile first: the dependency layer is rebuilt only when they change. Every
# workspace member's deno.json is needed to resolve the workspace; only shared/ and server/ ship.
COPY deno.json deno.lock ./
COPY shared/deno.json shared/
COPY server/deno.json server/
COPY deploy/deno.json deploy/
COPY shared/ shared/
COPY server/ server/

# The service's npm packages, exactly as locked (--frozen), so starting needs no registry
# (--cached-only below). The caches and the data directory belong to the user that runs it;
# the code stays root's and read-only to it.
RUN deno install --frozen --entrypoint server/main.ts \
  && mkdir -p /app/data \
  && chown -R deno:deno /app/data /app/node_modules /deno-dir

USER deno

# The KV store (and its lock): one container per volume, as one process per KV file.
VOLUME ["/app/data"]
# Public listener; the internal one (8081) only when internal_api is enabled and published.
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["deno", "eval", "--no-config", "const port = Deno.env.get('TOKEN_EXCHANGE__SERVER__PORT') || '8080'; const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(4000) }); Deno.exit(res.ok ? 0 : 1);"]

# The `deno task start` permissions, plus reading Docker secrets (/run/secrets) for a key file:
# the config and key files under /app, writes only to /app/data.
CMD ["run", "--cached-only", "--allow-net", "--allow-read=.,/run/secrets", "--allow-write=./data", "--allow-env", "server/main.ts", "serve"]
