"""trace.perfetto-trace (docs/output-schema.md) is Perfetto's protobuf trace of
the same run as trace.json: decoded here with google.protobuf against the few
Perfetto messages it uses (declared below with Perfetto's field numbers), it
has the JSON trace's tracks, slices (names, ns timestamps), flows and counters."""
import collections
import json
import os

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import nsim.nki as nki
from test_profile_tables import scale_exp  # a kernel with a helper function

F = descriptor_pb2.FieldDescriptorProto
# message -> [(field, number, type, label, message type)]; Perfetto's protos/perfetto/trace/.
MESSAGES = {
    "Trace": [("packet", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, "TracePacket")],
    "TracePacket": [("timestamp", 8, F.TYPE_UINT64, F.LABEL_OPTIONAL, None),
                    ("trusted_packet_sequence_id", 10, F.TYPE_UINT32, F.LABEL_OPTIONAL, None),
                    ("track_event", 11, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, "TrackEvent"),
                    ("track_descriptor", 60, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, "TrackDescriptor")],
    "TrackDescriptor": [("uuid", 1, F.TYPE_UINT64, F.LABEL_OPTIONAL, None),
                        ("name", 2, F.TYPE_STRING, F.LABEL_OPTIONAL, None),
                        ("process", 3, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, "ProcessDescriptor"),
                        ("thread", 4, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, "ThreadDescriptor"),
                        ("parent_uuid", 5, F.TYPE_UINT64, F.LABEL_OPTIONAL, None),
                        ("counter", 8, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, "CounterDescriptor")],
    "ProcessDescriptor": [("pid", 1, F.TYPE_INT32, F.LABEL_OPTIONAL, None),
                          ("process_name", 6, F.TYPE_STRING, F.LABEL_OPTIONAL, None)],
    "ThreadDescriptor": [("pid", 1, F.TYPE_INT32, F.LABEL_OPTIONAL, None),
                         ("tid", 2, F.TYPE_INT32, F.LABEL_OPTIONAL, None),
                         ("thread_name", 5, F.TYPE_STRING, F.LABEL_OPTIONAL, None)],
    "CounterDescriptor": [],
    "TrackEvent": [("debug_annotations", 4, F.TYPE_MESSAGE, F.LABEL_REPEATED, "DebugAnnotation"),
                   ("type", 9, F.TYPE_INT32, F.LABEL_OPTIONAL, None),
                   ("track_uuid", 11, F.TYPE_UINT64, F.LABEL_OPTIONAL, None),
                   ("categories", 22, F.TYPE_STRING, F.LABEL_REPEATED, None),
                   ("name", 23, F.TYPE_STRING, F.LABEL_OPTIONAL, None),
                   ("double_counter_value", 44, F.TYPE_DOUBLE, F.LABEL_OPTIONAL, None),
                   ("flow_ids", 47, F.TYPE_FIXED64, F.LABEL_REPEATED, None),
                   ("terminating_flow_ids", 48, F.TYPE_FIXED64, F.LABEL_REPEATED, None)],
    "DebugAnnotation": [("bool_value", 2, F.TYPE_BOOL, F.LABEL_OPTIONAL, None),
                        ("int_value", 4, F.TYPE_INT64, F.LABEL_OPTIONAL, None),
                        ("double_value", 5, F.TYPE_DOUBLE, F.LABEL_OPTIONAL, None),
                        ("string_value", 6, F.TYPE_STRING, F.LABEL_OPTIONAL, None),
                        ("name", 10, F.TYPE_STRING, F.LABEL_OPTIONAL, None)],
}
SLICE_BEGIN, SLICE_END, INSTANT, COUNTER = 1, 2, 3, 4


def _trace_class():
    f = descriptor_pb2.FileDescriptorProto(name="nsim_test_perfetto.proto", package="perfetto.protos",
                                           syntax="proto2")
    for name, fields in MESSAGES.items():
        m = f.message_type.add(name=name)
        for field, number, ftype, label, type_name in fields:
            fd = m.field.add(name=field, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = ".perfetto.protos." + type_name
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("perfetto.protos.Trace"))


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("perfetto"))
    x = np.random.default_rng(0).standard_normal((256, 128)).astype(np.float32)
    nki.benchmark(scale_exp, x, config="trn2", out_dir=out)
    proto = _trace_class()()
    proto.ParseFromString(open(os.path.join(out, "trace.perfetto-trace"), "rb").read())
    return json.load(open(os.path.join(out, "trace.json")))["traceEvents"], proto.packet


def _tracks(packets):
    """uuid -> (pid, tid, thread name) of thread tracks; uuid -> name of counter tracks."""
    threads, counters = {}, {}
    for p in packets:
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.HasField("thread"):
                threads[d.uuid] = (d.thread.pid, d.thread.tid, d.thread.thread_name)
            elif d.HasField("counter"):
                counters[d.uuid] = d.name
    return threads, counters


def test_the_same_thread_tracks(traces):
    events, packets = traces
    names = {(e["pid"], e["tid"], e["args"]["name"]) for e in events if e.get("name") == "thread_name"}
    threads, _ = _tracks(packets)
    assert set(threads.values()) == names and len(names) >= 5  # engines, DMA queues, hardware


def test_the_same_slices_at_the_same_ns(traces):
    """Every JSON slice is a begin/end pair on its thread's track: same name, start and end in ns."""
    events, packets = traces
    want = collections.Counter((e["pid"], e["tid"], e["name"], round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000))
                               for e in events if e["ph"] == "X")
    threads, _ = _tracks(packets)
    open_slices, got = collections.defaultdict(list), collections.Counter()
    for p in packets:
        if not p.HasField("track_event"):
            continue
        t = p.track_event
        if t.type == SLICE_BEGIN:
            open_slices[t.track_uuid].append((t.name, p.timestamp))
        elif t.type == SLICE_END:
            name, start = open_slices[t.track_uuid].pop()
            pid, tid, _ = threads[t.track_uuid]
            got[(pid, tid, name, start, p.timestamp)] += 1
    assert got == want and sum(want.values()) > 20
    assert all(not v for v in open_slices.values())


def test_the_same_flows_and_args(traces):
    """Semaphore arrows (signal -> wait) and the runtime -> hardware arrows: each JSON flow id
    leaves one slice and ends at one; instruction args (source_stack) become debug annotations."""
    events, packets = traces
    starts = sorted(e["id"] for e in events if e["ph"] == "s")
    ends = sorted(e["id"] for e in events if e["ph"] == "f")
    begins = [p.track_event for p in packets if p.HasField("track_event") and p.track_event.type == SLICE_BEGIN]
    assert sorted(i for b in begins for i in b.flow_ids) == starts
    assert sorted(i for b in begins for i in b.terminating_flow_ids) == ends
    assert any(e.get("name") == "semaphore" for e in events if e["ph"] == "s")
    stacks = [a.string_value for b in begins for a in b.debug_annotations if a.name == "source_stack"]
    assert stacks and all("_scale_rows" in s for s in stacks)


def test_the_same_counters(traces):
    events, packets = traces
    want = collections.Counter()
    for e in events:
        if e["ph"] == "C":
            for k, v in e["args"].items():
                want[(e["name"] + " " + k, round(e["ts"] * 1000), v)] += 1
    _, counters = _tracks(packets)
    got = collections.Counter((counters[p.track_event.track_uuid], p.timestamp, p.track_event.double_counter_value)
                              for p in packets if p.HasField("track_event") and p.track_event.type == COUNTER)
    assert got == want and any(name.startswith("HBM bandwidth") for name, _, _ in want)


def test_packets_are_in_time_order(traces):
    _, packets = traces
    ts = [p.timestamp for p in packets if p.HasField("track_event")]
    assert ts == sorted(ts)
