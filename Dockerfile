# The production image of the api, the worker and the CLI (docker-compose.yml picks the command).
# Its build steps are the commands apps/api/src/production-build.int.test.ts runs in every `npm test`
# (npm ci, npm run build, then the compiled entry points with NODE_ENV=production): keep them equal
# (docs/deploy.md).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY . .
# the build needs the devDependencies (esbuild, vite, typescript) whatever NODE_ENV says
RUN npm ci --include=dev --no-audit --no-fund
RUN npm run build
# production dependencies only: no TypeScript, tsx, esbuild, vite or test tools in the image
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
# package.json: "type": "module" makes node load dist/*.js as ES modules
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/apps/studio/dist ./apps/studio/dist
USER node
EXPOSE 3002
# the api's health (200 when it runs; the body says degraded when a dependency does not answer).
# The worker serves no HTTP: docker-compose.yml turns this check off for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 3002}/v1/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/api/server.js"]
