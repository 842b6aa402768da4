"""A run's output directory as Neuron Explorer's profile tables (Parquet).

`write(out_dir)` reads what the simulator wrote there (instructions.csv,
summary.json, the kernel text <hash>.neff) and writes Instruction, DmaPacket,
DmaPacketAggregated, ActiveTime, Summary, TensorInfo, Metadata and
SchemaFields .parquet next to them, in Neuron Explorer's profile schema
(SCHEMA_VERSION, docs/profile-tables.md): Explorer's column names and units
where the model has the quantity, the model's own columns prefixed `nsim_`.
Nothing here computes a metric: rows are the simulator's records, Summary is
summary.json's `explorer_summary` block (sim/model Summarize's numbers).

    python3 -m nsim.profile_tables DIR      # what `nsim run --out DIR` runs
"""
import csv
import glob
import json
import os
import re
import sys

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as e:  # the message names the fix; write() reports it
    raise ImportError("nsim.profile_tables needs pyarrow (bash tools/setup.sh installs the pinned version): %s" % e)

# The Neuron Explorer profile schema these tables follow (Neuron SDK 2.31.0,
# tools/neuron-explorer/profile-schema-reference.rst).
SCHEMA_VERSION = "7.4.0"
EXTENSION_PREFIX = "nsim_"

_I64, _F64, _STR, _BOOL = pa.int64(), pa.float64(), pa.string(), pa.bool_()
_ENGINE = {"TensorE": "tensor", "VectorE": "vector", "ScalarE": "scalar", "GpSimd": "gpsimd", "Sync": "sync"}

# table -> (description, [(field, type, unit, description)]); Explorer's
# fields first, then the model's (nsim_*). One registry: the writers fill
# exactly these columns and SchemaFields lists them.
TABLES = {
    "Instruction": ("One row per instruction the engines ran, in order of start.", [
        ("id", _I64, "", "Row id, unique in this profile."),
        ("start_ts", _I64, "nanoseconds", "When the instruction issued (floored to ns)."),
        ("end_ts", _I64, "nanoseconds", "When its outputs were committed (floored to ns)."),
        ("duration_ns", _I64, "nanoseconds", "end_ts - start_ts."),
        ("engine", _STR, "", "Engine: tensor, vector, scalar, gpsimd or sync."),
        ("timeline_track", _STR, "", "The trace lane it is drawn on (TensorE, VectorE, ...)."),
        ("pcore_idx", _I64, "", "Physical core within the logical core (always 0)."),
        ("opcode", _STR, "", "Hardware opcode (MATMUL, ACTIVATE, ...)."),
        ("operands", _STR, "", "Operands as the kernel text writes them."),
        ("compiler_opcode", _STR, "", "The kernel text's opcode (matmul, activation, ...)."),
        ("pc", _I64, "", "Position of the instruction in its engine's stream."),
        ("evt_wait_time_ns", _I64, "nanoseconds",
         "From when it could issue (the previous instruction of its engine issued) until its semaphore waits held."),
        ("nki_source_location", _STR, "", "The user's source line that made it: FILE:LINE (innermost frame)."),
        ("hbm_read_bytes", _I64, "bytes", "dma_copy: HBM bytes its transfer read."),
        ("hbm_write_bytes", _I64, "bytes", "dma_copy: HBM bytes its transfer wrote."),
        ("dma_trigger_start_ts", _I64, "nanoseconds", "dma_copy: when the first piece of its transfer started."),
        ("dma_trigger_end_ts", _I64, "nanoseconds", "dma_copy: when the last piece of its transfer ended."),
        ("dma_wait_time_ns", _I64, "nanoseconds", "dma_copy: from its end until its transfer's first piece started."),
        ("nsim_kernel_name", _STR, "", "Kernel name."),
        ("nsim_kernel_hash", _STR, "", "Kernel hash (decimal string)."),
        ("nsim_line", _I64, "", "Line of the kernel text (.nk) the instruction is on."),
        ("nsim_source_stack", _STR, "",
         "The user's call stack, innermost first: 'FILE:LINE FUNCTION < FILE:LINE FUNCTION ...'."),
        ("nsim_aten_op", _STR, "",
         "The ATen op or compiled region whose kernel execution ran it (PyTorch, C++ API; null for a kernel run directly)."),
        ("nsim_start_ps", _I64, "picoseconds", "Exact start."),
        ("nsim_end_ps", _I64, "picoseconds", "Exact end."),
        ("nsim_ready_ps", _I64, "picoseconds", "When it could issue: the previous instruction of its engine issued."),
        ("nsim_wait_ps", _I64, "picoseconds",
         "nsim_start_ps - nsim_ready_ps = semaphore + engine_busy + dependency waits, exactly."),
        ("nsim_semaphore_wait_ps", _I64, "picoseconds", "Waiting for its semaphores (exact evt_wait_time_ns)."),
        ("nsim_engine_busy_wait_ps", _I64, "picoseconds",
         "Then waiting for the engine to take another instruction (previous one's initiation interval)."),
        ("nsim_dependency_wait_ps", _I64, "picoseconds",
         "Then waiting for an earlier instruction's outputs to commit (read-after-write turnaround)."),
        ("nsim_table_load_ps", _I64, "picoseconds",
         "ScalarE: activation-table load inside [start, end) (not part of the wait)."),
        ("nsim_signalled_by_id", _I64, "", "Instruction.id whose signal released its last semaphore wait (null: none)."),
        ("nsim_model_flops", _I64, "flops", "Arithmetic work the model counts for it (OpcodeSpec::flops)."),
    ]),
    "DmaPacket": ("One row per DMA piece: one DMA engine's share of one dma_copy.", [
        ("id", _I64, "", "Row id, unique in this profile."),
        ("start_ts", _I64, "nanoseconds", "When its first byte moved."),
        ("end_ts", _I64, "nanoseconds", "When it ended."),
        ("duration_ns", _I64, "nanoseconds", "end_ts - start_ts."),
        ("pcore_idx", _I64, "", "Physical core within the logical core (always 0)."),
        ("packet_idx", _I64, "", "Its position among its transfer's pieces (by DMA engine order)."),
        ("packet_aggregation_id", _I64, "", "DmaPacketAggregated.id of its transfer."),
        ("engine_idx", _I64, "", "DMA engine that moved it."),
        ("read_bytes", _I64, "bytes", "Bytes it read (its elements at the wider dtype)."),
        ("write_bytes", _I64, "bytes", "Bytes it wrote (likewise)."),
        ("transfer_bytes", _I64, "bytes", "Bytes it moved."),
        ("throughput", _F64, "bytes_per_second", "transfer_bytes / its exact duration."),
        ("queue_type", _STR, "", "Explorer's DmaQueueType: always 'unknown' (the model does not type queues)."),
        ("queue_name", _STR, "", "Queue, named after its issuing engine (qSyncIO0, qActIO1, ...)."),
        ("queue_idx", _I64, "", "Queue number within its issuing engine's queues."),
        ("nsim_instruction_id", _I64, "", "Instruction.id of the dma_copy it belongs to."),
        ("nsim_source_location", _STR, "", "That dma_copy's nki_source_location."),
        ("nsim_aten_op", _STR, "", "That dma_copy's nsim_aten_op."),
        ("nsim_hbm_read_bytes", _I64, "bytes", "HBM bytes it read."),
        ("nsim_hbm_write_bytes", _I64, "bytes", "HBM bytes it wrote."),
        ("nsim_start_ps", _I64, "picoseconds", "Exact start."),
        ("nsim_end_ps", _I64, "picoseconds", "Exact end."),
        ("nsim_queue_wait_ps", _I64, "picoseconds",
         "From its dma_copy's end until ready: the queue's descriptor processing and the start latency."),
        ("nsim_dma_engine_wait_ps", _I64, "picoseconds", "From ready until start: its DMA engine moving other pieces."),
    ]),
    "DmaPacketAggregated": ("One row per dma_copy transfer: its pieces together.", [
        ("id", _I64, "", "Row id, unique in this profile."),
        ("start_ts", _I64, "nanoseconds", "First piece's start."),
        ("end_ts", _I64, "nanoseconds", "Last piece's end."),
        ("duration_ns", _I64, "nanoseconds", "end_ts - start_ts."),
        ("pcore_idx", _I64, "", "Physical core within the logical core (always 0)."),
        ("queue_idx", _I64, "", "Queue number within its issuing engine's queues."),
        ("queue_name", _STR, "", "Queue name."),
        ("variable", _STR, "", "The HBM tensor it moves (else its destination)."),
        ("read_bytes", _I64, "bytes", "Sum over its pieces."),
        ("write_bytes", _I64, "bytes", "Sum over its pieces."),
        ("transfer_bytes", _I64, "bytes", "Sum over its pieces."),
        ("throughput", _F64, "bytes_per_second", "transfer_bytes / (last end - first start)."),
        ("trigger", _I64, "nanoseconds", "Start of the dma_copy instruction that triggered it."),
        ("completion", _I64, "nanoseconds", "End of that instruction."),
        ("nsim_instruction_id", _I64, "", "Instruction.id of that dma_copy."),
        ("nsim_source_location", _STR, "", "Its nki_source_location."),
        ("nsim_packet_count", _I64, "", "Pieces (DMA engines it spans)."),
        ("nsim_hbm_read_bytes", _I64, "bytes", "HBM bytes read."),
        ("nsim_hbm_write_bytes", _I64, "bytes", "HBM bytes written."),
    ]),
    "ActiveTime": ("When each engine ran at least one instruction: its instructions' intervals merged.", [
        ("start_ts", _I64, "nanoseconds", "Start of the merged interval."),
        ("end_ts", _I64, "nanoseconds", "End of the merged interval."),
        ("engine", _STR, "", "Engine."),
        ("pcore_idx", _I64, "", "Physical core within the logical core (always 0)."),
        ("duration_ns", _I64, "nanoseconds", "end_ts - start_ts."),
        ("nsim_start_ps", _I64, "picoseconds", "Exact start."),
        ("nsim_end_ps", _I64, "picoseconds", "Exact end."),
    ]),
    "TensorInfo": ("One row per HBM tensor of the kernel.", [
        ("variable_name", _STR, "", "Tensor name."),
        ("shape", _STR, "", "Shape, space separated."),
        ("size", _I64, "bytes", "Size."),
        ("pcore_idx", _I64, "", "Physical core within the logical core (always 0)."),
        ("load_to_sbuf_total_size_bytes", _I64, "bytes", "Bytes loaded from it into SBUF."),
        ("load_to_sbuf_dma_count", _I64, "", "dma_copy instructions that loaded from it into SBUF."),
        ("load_to_sbuf_avg_size_bytes", _I64, "bytes", "Their average size."),
        ("load_to_sbuf_repeat_factor", _F64, "", "load_to_sbuf_total_size_bytes / size."),
        ("nsim_dtype", _STR, "", "Element type."),
    ]),
    "Metadata": ("What produced this profile.", [
        ("profile_schema_version", _STR, "", "The Neuron Explorer profile schema followed."),
        ("profile_name", _STR, "", "Kernel name."),
        ("is_simulation", _BOOL, "", "Always true: the nsim model, not hardware."),
        ("nsim_config", _STR, "", "Hardware config the model ran."),
        ("nsim_dma_engine_bytes_per_s", _F64, "bytes_per_second", "Bandwidth of one DMA engine (config dma.bytes_per_ns)."),
    ]),
}
# Summary: Explorer's names and units, one row per profile; its fields are
# whatever summary.json's explorer_summary holds (SUMMARY_UNITS gives units).
SUMMARY_DESCRIPTION = "Explorer's summary metrics of the execution(s), from summary.json explorer_summary."
SCHEMA_FIELDS = ("SchemaFields", "One row per (table, field) of these tables.", [
    ("table_name", _STR), ("table_description", _STR), ("field_name", _STR), ("field_description", _STR),
    ("field_type", _STR), ("field_required", _BOOL), ("field_format", _STR), ("field_unit", _STR)])


def _ps(text):
    """'1234.567' (ns, three decimals: exact ps) -> 1234567."""
    return int(round(float(text) * 1000)) if text else 0


def _ns(ps):
    return ps // 1000


def _int(text):
    return int(text) if text else None


def _read_rows(out_dir):
    with open(os.path.join(out_dir, "instructions.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    instrs = [r for r in rows if r["opcode"] != "dma_transfer"]
    pieces = [r for r in rows if r["opcode"] == "dma_transfer"]
    instrs.sort(key=lambda r: (_ps(r["start_ns"]), int(r["execution"]), r["lane"], int(r["index"])))
    return instrs, pieces


def _name(row, instruction):
    """An instruction of one execution: LANE#INDEX names one only within its execution."""
    return (int(row["execution"]), instruction)


def _instruction_rows(instrs, pieces):
    ids = {_name(r, "%s#%s" % (r["lane"], r["index"])): i for i, r in enumerate(instrs)}
    by_copy = {}
    for p in pieces:
        by_copy.setdefault(_name(p, p["dma_copy"]), []).append(p)
    out = []
    for i, r in enumerate(instrs):
        start, end = _ps(r["start_ns"]), _ps(r["end_ns"])
        wait = _ps(r["wait_ns"])
        own = by_copy.get(_name(r, "%s#%s" % (r["lane"], r["index"])), [])
        first = min((_ps(p["start_ns"]) for p in own), default=None)
        last = max((_ps(p["end_ns"]) for p in own), default=None)
        out.append({
            "id": i, "start_ts": _ns(start), "end_ts": _ns(end), "duration_ns": _ns(end) - _ns(start),
            "engine": _ENGINE.get(r["lane"], r["lane"].lower()), "timeline_track": r["lane"], "pcore_idx": 0,
            "opcode": r["hw_opcode"], "operands": r["operands"],
            "compiler_opcode": r["opcode"], "pc": int(r["index"]),
            "evt_wait_time_ns": _ns(_ps(r["semaphore_wait_ns"])),
            "nki_source_location": r["source"] or None,
            "hbm_read_bytes": sum(int(p["hbm_read_bytes"]) for p in own) if own else None,
            "hbm_write_bytes": sum(int(p["hbm_write_bytes"]) for p in own) if own else None,
            "dma_trigger_start_ts": _ns(first) if own else None, "dma_trigger_end_ts": _ns(last) if own else None,
            "dma_wait_time_ns": _ns(first - end) if own else None,
            "nsim_kernel_name": r["kernel_name"], "nsim_kernel_hash": r["kernel_hash"],
            "nsim_line": _int(r["line"]), "nsim_source_stack": r["source_stack"] or None,
            "nsim_aten_op": r["aten_op"] or None,
            "nsim_start_ps": start, "nsim_end_ps": end, "nsim_ready_ps": start - wait, "nsim_wait_ps": wait,
            "nsim_semaphore_wait_ps": _ps(r["semaphore_wait_ns"]),
            "nsim_engine_busy_wait_ps": _ps(r["engine_busy_wait_ns"]),
            "nsim_dependency_wait_ps": _ps(r["dependency_wait_ns"]),
            "nsim_table_load_ps": _ps(r["table_load_ns"]),
            "nsim_signalled_by_id": ids.get(_name(r, r["signalled_by"])), "nsim_model_flops": int(r["model_flops"]),
        })
    return out, ids


def _queue_index(name):
    m = re.search(r"(\d+)$", name)
    return int(m.group(1)) if m else None


def _dma_rows(instrs, pieces, ids, tensors):
    by_copy = {}
    for p in sorted(pieces, key=lambda p: (ids.get(_name(p, p["dma_copy"]), -1), int(p["dma_engine"]))):
        by_copy.setdefault(_name(p, p["dma_copy"]), []).append(p)
    packets, transfers = [], []
    for agg_id, (copy, own) in enumerate(sorted(by_copy.items(), key=lambda kv: ids.get(kv[0], -1))):
        trigger = instrs[ids[copy]] if copy in ids else None
        for k, p in enumerate(own):
            start, end, size = _ps(p["start_ns"]), _ps(p["end_ns"]), int(p["bytes"])
            packets.append({
                "id": len(packets), "start_ts": _ns(start), "end_ts": _ns(end), "duration_ns": _ns(end) - _ns(start),
                "pcore_idx": 0, "packet_idx": k, "packet_aggregation_id": agg_id, "engine_idx": int(p["dma_engine"]),
                "read_bytes": size, "write_bytes": size, "transfer_bytes": size,
                "throughput": size / ((end - start) * 1e-12) if end > start else None,
                "queue_type": "unknown", "queue_name": p["lane"], "queue_idx": _queue_index(p["lane"]),
                "nsim_instruction_id": ids.get(copy), "nsim_source_location": p["source"] or None,
                "nsim_aten_op": p["aten_op"] or None,
                "nsim_hbm_read_bytes": int(p["hbm_read_bytes"]), "nsim_hbm_write_bytes": int(p["hbm_write_bytes"]),
                "nsim_start_ps": start, "nsim_end_ps": end, "nsim_queue_wait_ps": _ps(p["queue_wait_ns"]),
                "nsim_dma_engine_wait_ps": _ps(p["dma_engine_wait_ns"]),
            })
        first, last = min(_ps(p["start_ns"]) for p in own), max(_ps(p["end_ns"]) for p in own)
        size = sum(int(p["bytes"]) for p in own)
        transfers.append({
            "id": agg_id, "start_ts": _ns(first), "end_ts": _ns(last), "duration_ns": _ns(last) - _ns(first),
            "pcore_idx": 0, "queue_idx": _queue_index(own[0]["lane"]), "queue_name": own[0]["lane"],
            "variable": _dma_variable(trigger["operands"], tensors) if trigger else None,
            "read_bytes": size, "write_bytes": size, "transfer_bytes": size,
            "throughput": size / ((last - first) * 1e-12) if last > first else None,
            "trigger": _ns(_ps(trigger["start_ns"])) if trigger else None,
            "completion": _ns(_ps(trigger["end_ns"])) if trigger else None,
            "nsim_instruction_id": ids.get(copy), "nsim_source_location": own[0]["source"] or None,
            "nsim_packet_count": len(own),
            "nsim_hbm_read_bytes": sum(int(p["hbm_read_bytes"]) for p in own),
            "nsim_hbm_write_bytes": sum(int(p["hbm_write_bytes"]) for p in own),
        })
    return packets, transfers


_TENSOR_LINE = re.compile(r"^tensor\s+(\w+)\s+(\w+)\s+(\w+)\s+\[([^\]]*)\]")
_DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "fp8e4": 1, "fp8e5": 1, "i32": 4, "u32": 4, "i8": 1, "u8": 1,
                "i16": 2, "u16": 2, "f8e4m3": 1, "f8e5m2": 1}


def _kernel_tensors(out_dir):
    """name -> (space, dtype, shape) of the kernel text (<hash>.neff) in out_dir."""
    tensors = {}
    for path in sorted(glob.glob(os.path.join(out_dir, "*.neff"))):
        with open(path) as f:
            for line in f:
                m = _TENSOR_LINE.match(line.strip())
                if m:
                    shape = [int(x) for x in m.group(4).replace(" ", "").split(",") if x]
                    tensors[m.group(1)] = (m.group(2), m.group(3), shape)
    return tensors


def _operand_names(operands):
    """The tensor of each operand ("dst, src[0:128] queue=1" -> [dst, src])."""
    names, depth, start = [], 0, 0
    for i, c in enumerate(operands + ","):
        depth += (c == "[") - (c == "]")
        if c == "," and depth == 0:
            m = re.match(r"\s*([A-Za-z_]\w*)", operands[start:i])
            if m:
                names.append(m.group(1))
            start = i + 1
    return names


def _dma_variable(operands, tensors):
    names = _operand_names(operands)
    hbm = [n for n in names if tensors.get(n, ("",))[0] == "hbm"]
    return (hbm or names or [None])[0]


def _tensor_rows(tensors, instrs, transfers):
    loads = {}  # HBM tensor -> [bytes of each dma_copy that loads it into SBUF]
    by_id = {t["nsim_instruction_id"]: t for t in transfers}
    for i, r in enumerate(instrs):
        if r["opcode"] != "dma_copy" or i not in by_id:
            continue
        names = _operand_names(r["operands"])
        if len(names) < 2 or names[0] not in tensors or names[1] not in tensors:
            continue
        if tensors[names[0]][0] == "sbuf" and tensors[names[1]][0] == "hbm":
            loads.setdefault(names[1], []).append(by_id[i]["transfer_bytes"])
    rows = []
    for name, (space, dtype, shape) in tensors.items():
        if space != "hbm":
            continue
        size = _DTYPE_BYTES.get(dtype, 0)
        for d in shape:
            size *= d
        sizes = loads.get(name, [])
        rows.append({
            "variable_name": name, "shape": " ".join(map(str, shape)), "size": size, "pcore_idx": 0,
            "load_to_sbuf_total_size_bytes": sum(sizes), "load_to_sbuf_dma_count": len(sizes),
            "load_to_sbuf_avg_size_bytes": sum(sizes) // len(sizes) if sizes else 0,
            "load_to_sbuf_repeat_factor": sum(sizes) / size if size else None, "nsim_dtype": dtype,
        })
    return rows


def _active_rows(instructions):
    rows = []
    for lane in sorted({r["timeline_track"] for r in instructions}):
        spans = sorted((r["nsim_start_ps"], r["nsim_end_ps"]) for r in instructions if r["timeline_track"] == lane)
        merged = []
        for s, e in spans:
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        for s, e in merged:
            rows.append({"start_ts": _ns(s), "end_ts": _ns(e), "engine": _ENGINE.get(lane, lane.lower()),
                         "pcore_idx": 0, "duration_ns": _ns(e) - _ns(s), "nsim_start_ps": s, "nsim_end_ps": e})
    return rows


def _table(name, rows):
    fields = TABLES[name][1]
    schema = pa.schema([(f, t) for f, t, _, _ in fields])
    return pa.table({f: pa.array([r.get(f) for r in rows], type=t) for f, t, _, _ in fields}, schema=schema)


def _summary_table(summary):
    block = summary["total"]["explorer_summary"]
    fields = [(k, _I64 if isinstance(v, int) and not isinstance(v, bool) else _F64) for k, v in block.items()]
    return pa.table({k: pa.array([block[k]], type=t) for k, t in fields}), fields


def _summary_unit(field):
    """Explorer's unit of a Summary field, by its name."""
    if field.endswith("_percent"):
        return "percent"
    if field.endswith("_time"):
        return "seconds"
    if field.endswith("_flops"):
        return "flops"
    if field.endswith("_bytes"):
        return "bytes"
    return ""


def _schema_fields_table(summary_fields):
    rows = []
    for table, (description, fields) in TABLES.items():
        for f, t, unit, text in fields:
            rows.append((table, description, f, text, t, unit))
    for f, t in summary_fields:
        rows.append(("Summary", SUMMARY_DESCRIPTION, f, "See Neuron Explorer's Summary." if not f.startswith(
            EXTENSION_PREFIX) else "The model's own metric (docs/profile-tables.md).", t, _summary_unit(f)))
    name, _, cols = SCHEMA_FIELDS
    data = {c: [] for c, _ in cols}
    for table, description, f, text, t, unit in rows:
        for c, v in (("table_name", table), ("table_description", description), ("field_name", f),
                     ("field_description", text),
                     ("field_type", "integer" if t == _I64 else "number" if t == _F64 else
                      "boolean" if t == _BOOL else "string"),
                     ("field_required", f in ("id", "start_ts", "end_ts", "duration_ns")),
                     ("field_format", {_I64: "int64", _F64: "double"}.get(t, "")), ("field_unit", unit)):
            data[c].append(v)
    return pa.table({c: pa.array(data[c], type=t) for c, t in cols})


def write(out_dir):
    """Writes the profile tables of the run in out_dir; returns the paths written."""
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    instrs, pieces = _read_rows(out_dir)
    instructions, ids = _instruction_rows(instrs, pieces)
    tensors = _kernel_tensors(out_dir)
    packets, transfers = _dma_rows(instrs, pieces, ids, tensors)
    config = summary.get("config", {})
    tables = {
        "Instruction": _table("Instruction", instructions),
        "DmaPacket": _table("DmaPacket", packets),
        "DmaPacketAggregated": _table("DmaPacketAggregated", transfers),
        "ActiveTime": _table("ActiveTime", _active_rows(instructions)),
        "TensorInfo": _table("TensorInfo", _tensor_rows(tensors, instrs, transfers)),
        "Metadata": _table("Metadata", [{
            "profile_schema_version": SCHEMA_VERSION, "profile_name": summary.get("kernel", {}).get("name"),
            "is_simulation": True, "nsim_config": config.get("name"),
            "nsim_dma_engine_bytes_per_s": config.get("dma_engine_bytes_per_s")}]),
    }
    tables["Summary"], summary_fields = _summary_table(summary)
    tables["SchemaFields"] = _schema_fields_table(summary_fields)
    paths = []
    for name, table in tables.items():
        path = os.path.join(out_dir, name + ".parquet")
        pq.write_table(table, path)
        paths.append(path)
    return paths


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python3 -m nsim.profile_tables OUT_DIR\n")
        return 2
    try:
        write(argv[1])
    except (OSError, KeyError, ValueError) as e:
        sys.stderr.write("nsim.profile_tables: %s: %s\n" % (argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
