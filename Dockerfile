# One image for the api and the worker (docker-compose.yml picks the command).
FROM node:20-bookworm-slim
WORKDIR /app
COPY . .
RUN npm install --omit=dev --no-audit --no-fund
EXPOSE 3002
CMD ["npx", "tsx", "apps/api/src/server.ts"]
