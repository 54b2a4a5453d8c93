# Redis and PostgreSQL for a local run of the deployment (deploy/local/run.py), from Debian's
# packages on the same base as Paiju's image, where the registry's redis and postgres images
# cannot be pulled. Each container runs one of them: `redis-server …` or `postgres-entrypoint`.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
FROM ${PYTHON_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server postgresql-15 \
    && rm -rf /var/lib/apt/lists/*
COPY deploy/local/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/usr/lib/postgresql/15/bin:$PATH
