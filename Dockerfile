# One image for the three services of the distributed mode; the command picks the service
# (see docker-compose.yml). The embedded broker/registry are not used in this mode.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies patches/ (kafkajs: encoder speed-ups, rejoining as a crashed member).
COPY patches ./patches
RUN npm ci
COPY . .
# DuckDB's signed lake extensions for the open lake (DuckLake), from PyPI with pip
# (scripts/duckdb-extensions/provision.ts); pip is installed only where it is missing.
RUN (python3 -m pip --version >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*)) && npm run lake:extensions
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/.cache/duckdb-extensions ./.cache/duckdb-extensions
COPY package.json ./
COPY schemas ./schemas
COPY openapi ./openapi
COPY core/control/migrations ./core/control/migrations
COPY otlp/proto ./otlp/proto
COPY pricing/standard-rate-cards.json ./pricing/standard-rate-cards.json
USER node
# The api's small young generation: docs/decisions/0085-small-v8-young-generation-for-the-api.md.
CMD ["node", "--max-semi-space-size=4", "--expose-gc", "dist/api/main.js"]
