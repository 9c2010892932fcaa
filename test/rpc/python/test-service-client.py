"""A client of the TestService built on Debian's python3-grpcio (gRPC C-core), used by the mocha tests.

Stubs come from protoc + grpc_python_plugin; their directory must be on PYTHONPATH. Every mode prints one
JSON object on stdout. Run with /usr/bin/python3 (the python3 on PATH may not see Debian's packages).

  calls TARGET                        unary calls, gzip, metadata echo and a short stream
  slow-reader TARGET N SIZE STALL_S   DoubleEcho: offer N messages of SIZE bytes while reading nothing
                                      for STALL_S seconds (less if all N were offered), then read every reply
"""
import json
import sys
import threading
import time

import grpc
import test_service_pb2 as pb
import test_service_pb2_grpc as pb_grpc


def calls(stub):
    echoed = stub.Echo(pb.EchoRequest(payload="hello from python ☃"), timeout=10).payload
    gzip_echoed = stub.Echo(pb.EchoRequest(payload="z" * 100_000), compression=grpc.Compression.Gzip, timeout=10)
    try:
        stub.Sum(pb.SumRequest(values=[2**31 - 1, 1]), timeout=10)
        overflow = None
    except grpc.RpcError as error:
        overflow = {"code": error.code().name, "details": error.details()}
    _, call = stub.Echo.with_call(
        pb.EchoRequest(payload="md"),
        metadata=(("x-grpc-test-echo-initial", "py-initial"), ("x-grpc-test-echo-trailing-bin", b"\x00\x01\xfe")),
        timeout=10,
    )
    stream = [r.payload for r in stub.DoubleEcho(iter([pb.EchoRequest(payload=f"s{i}") for i in range(1000)]), timeout=20)]
    return {
        "echo": echoed,
        "gzipEchoLength": len(gzip_echoed.payload),
        "sum": stub.Sum(pb.SumRequest(values=[1, 2, 3]), timeout=10).value,
        "emptySum": stub.Sum(pb.SumRequest(), timeout=10).value,
        "overflow": overflow,
        "initialMetadata": dict((k, v) for k, v in call.initial_metadata() if k.startswith("x-grpc-test")),
        "trailingBin": [list(v) for k, v in call.trailing_metadata() if k == "x-grpc-test-echo-trailing-bin"],
        "streamReplies": len(stream),
        "streamInOrder": stream == [f"s{i // 2}" for i in range(2000)],
        "emptyStreamReplies": len(list(stub.DoubleEcho(iter([]), timeout=10))),
    }


def slow_reader(stub, count, size, stall_s):
    offered = 0
    lock = threading.Lock()

    def requests():
        nonlocal offered
        for i in range(count):
            with lock:
                offered += 1
            # gRPC C-core asks for the next message only once the previous one was taken by HTTP/2,
            # so `offered` stops growing when flow control holds the client back.
            yield pb.EchoRequest(payload=f"{i:08d}".ljust(size, "."))

    replies = stub.DoubleEcho(requests(), timeout=120)
    # Read nothing for stall_s seconds, or until every message was offered (nothing held the client back).
    deadline = time.monotonic() + stall_s
    while time.monotonic() < deadline:
        with lock:
            if offered >= count:
                break
        time.sleep(0.05)
    with lock:
        offered_while_stalled = offered
    received = 0
    in_order = True
    for reply in replies:
        if int(reply.payload[:8]) != received // 2:
            in_order = False
        received += 1
    return {
        "offered": count,
        "offeredWhileStalled": offered_while_stalled,
        "replies": received,
        "inOrder": in_order,
        "code": replies.code().name,
    }


def main(argv):
    mode, target = argv[1], argv[2]
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.TestServiceStub(channel)
        if mode == "calls":
            result = calls(stub)
        elif mode == "slow-reader":
            result = slow_reader(stub, int(argv[3]), int(argv[4]), float(argv[5]))
        else:
            raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv)
