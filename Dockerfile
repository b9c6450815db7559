# The planter image: built on Debian bookworm with the repo's own dependency script, run on
# bookworm-slim with only the runtime libraries.
#   docker build -t ghcr.io/nephio-project/planter:0.1.0 .
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps
COPY . .
RUN cmake --preset release && cmake --build --preset release --target planter

FROM debian:bookworm-slim
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      ca-certificates libcurl4 libfyaml0 libboost-json1.81.0 libssl3 libnghttp2-14 \
      libfmt9 libspdlog1.10 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/release/src/planter /usr/local/bin/planter
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/planter"]
CMD ["operator", "--leader-elect"]
