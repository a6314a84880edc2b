# One image for the API and the worker; docker-compose picks the command. Node 26 (LTS), as in .node-version.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY migrations migrations
COPY bench bench
COPY client client
COPY console console
RUN npm run build && npm prune --omit=dev

FROM node:26-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
EXPOSE 8080
CMD ["node", "dist/src/bin/main.js"]
