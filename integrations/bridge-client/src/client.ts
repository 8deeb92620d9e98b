/**
 * A client for `contextward bridge --stdio` (JSONL protocol v1, docs/bridge.md).
 *
 * Owns: spawning the Python bridge, one JSON frame per line each way, request
 * ids, per-request timeouts, and answering the bridge's provider_request
 * frames through a host-supplied function (the host's own model).
 *
 * Must never: hold an API key (the host's callback does), throw from a host
 * event because the bridge is missing or broken (callers use `failOpen`), or
 * write frames anywhere but the bridge's stdin.
 */

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export const PROTOCOL_VERSION = 1;
/** The largest frame either side sends, in bytes, without its newline. */
export const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** Milliseconds a request may take unless the caller says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The longest `timeout_ms` the bridge takes (docs/bridge.md); a longer wait is sent as this. */
export const MAX_TIMEOUT_MS = 600_000;
/** Milliseconds every request fails at once after the bridge twice failed to answer in time. */
export const HUNG_PAUSE_MS = 60_000;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What the bridge asks the host's model (see docs/bridge.md, "Provider mode"). */
export interface ProviderRequest {
  request_id: string;
  parent_request_id: string | number;
  task: string;
  input: { [key: string]: Json };
  schema?: { [key: string]: Json };
}

/** Answers one provider request; resolve with the `data` to send back, or throw. */
export type ProviderHandler = (request: ProviderRequest, signal: AbortSignal) => Promise<Json>;

export interface BridgeOptions {
  /** The command and arguments that start the bridge. Default: `bridgeCommand()`. */
  command?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  provider?: ProviderHandler;
  /** One line per problem; never conversation content. Default: nothing. */
  log?: (line: string) => void;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** Let the bridge ask the host's model during this request. */
  provider?: boolean;
  signal?: AbortSignal;
}

/** A request that failed: `code` is the bridge's stable error code (or the client's own). */
export class BridgeFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "BridgeFailure";
    this.code = code;
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: BridgeFailure) => void;
  timer: NodeJS.Timeout;
}

/**
 * The command that starts the bridge: `$CONTEXTWARD_BRIDGE` (split into words as a shell
 * would, quotes kept together: `"/opt/My Tools/contextward" bridge --stdio`), else
 * `$CONTEXTWARD_BIN bridge --stdio`, else `contextward bridge --stdio`.
 */
export function bridgeCommand(env: NodeJS.ProcessEnv = process.env): string[] {
  const custom = env.CONTEXTWARD_BRIDGE?.trim();
  if (custom) {
    return [...custom.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  }
  const program = env.CONTEXTWARD_BIN?.trim() || "contextward";
  return [program, "bridge", "--stdio"];
}

export class BridgeClient {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly providerAborts = new Map<string, AbortController>();
  private nextId = 1;
  private buffer = "";
  private skipping = false;
  /** Requests in a row the bridge left unanswered past their timeout (each one kills it). */
  private hangs = 0;
  /** Until when requests fail at once, the bridge having hung twice in a row. */
  private pausedUntil = 0;
  private readonly options: BridgeOptions;

  constructor(options: BridgeOptions = {}) {
    this.options = options;
  }

  /** Send one request and resolve with its `result`; reject with a `BridgeFailure`. */
  request<T = unknown>(
    operation: string,
    fields: { [key: string]: unknown } = {},
    options: RequestOptions = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const requestId = `r${this.nextId++}`;
    return new Promise<T>((resolve, reject) => {
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) {
        // A bridge that hung twice in a row would cost every host event its whole timeout.
        const seconds = Math.ceil(wait / 1000);
        reject(new BridgeFailure("bridge_unavailable", `the bridge stopped answering; trying again in ${seconds} s`));
        return;
      }
      let child: ChildProcessWithoutNullStreams;
      try {
        child = this.ensure();
      } catch (error) {
        reject(new BridgeFailure("bridge_unavailable", describe(error)));
        return;
      }
      const timer = setTimeout(() => {
        // The bridge answers a slow request "timeout" itself; no answer at all means it
        // hangs, so it is killed and the next request starts a new one.
        this.settle(requestId, new BridgeFailure("timeout", `no answer within ${timeoutMs} ms`));
        this.hung(child);
      }, timeoutMs + 250);
      this.pending.set(requestId, { resolve: resolve as (value: unknown) => void, reject, timer });
      options.signal?.addEventListener(
        "abort",
        () => this.settle(requestId, new BridgeFailure("aborted", "request aborted")),
        { once: true },
      );
      const frame: { [key: string]: unknown } = {
        ...fields,
        protocol_version: PROTOCOL_VERSION,
        type: "request",
        request_id: requestId,
        operation,
        timeout_ms: Math.min(timeoutMs, MAX_TIMEOUT_MS),
      };
      if (options.provider) frame.provider = true;
      this.write(child, frame);
    });
  }

  /** End the bridge: close its stdin (it finishes what is in flight) and forget it. */
  close(): void {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin.end();
      const killer = setTimeout(() => child.kill(), 2_000);
      killer.unref?.();
      child.once("exit", () => clearTimeout(killer));
    }
    this.failAll("bridge_closed", "the bridge was closed");
  }

  private hung(child: ChildProcessWithoutNullStreams): void {
    if (this.child !== child) return; // already gone, or another request found it hung
    this.child = undefined;
    child.kill("SIGKILL");
    this.hangs += 1;
    if (this.hangs >= 2) this.pausedUntil = Date.now() + HUNG_PAUSE_MS;
    this.log(`the bridge did not answer in time and was stopped (${this.hangs} in a row)`);
    this.failAll("bridge_exited", "the bridge did not answer in time and was stopped");
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const [program, ...args] = this.options.command ?? bridgeCommand(this.options.env);
    if (!program) throw new Error("empty bridge command");
    const child = spawn(program, args, {
      cwd: this.options.cwd,
      env: this.options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.buffer = "";
    this.skipping = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => this.receive(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) if (line.trim()) this.log(`bridge stderr: ${line.slice(0, 200)}`);
    });
    child.stdin.on("error", () => undefined); // an EPIPE surfaces as the exit below
    // A bridge that ignores the end of its input never outlives this process.
    const reap = () => child.kill("SIGKILL");
    process.once("exit", reap);
    // Only the current bridge's end fails what is pending: after close() and a
    // restart, the old process's exit must not touch the new one's requests.
    child.on("error", (error) => {
      process.removeListener("exit", reap);
      if (this.child !== child) return;
      this.child = undefined;
      this.failAll("bridge_unavailable", `cannot start the bridge: ${describe(error)}`);
    });
    child.on("exit", (code, signal) => {
      process.removeListener("exit", reap);
      if (this.child !== child) return;
      this.child = undefined;
      this.failAll("bridge_exited", `the bridge exited (${signal ?? code})`);
    });
    // The host process may exit while the bridge idles.
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    (child.stderr as unknown as { unref?: () => void }).unref?.();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return child;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      this.dispatch(line);
    }
    if (this.buffer.length > MAX_FRAME_BYTES) {
      // Never buffer an over-long frame whole: drop it up to its newline.
      this.buffer = "";
      this.skipping = true;
      this.log("dropped an over-long frame from the bridge");
    }
  }

  private dispatch(line: string): void {
    if (!line.trim()) return;
    let frame: { [key: string]: unknown };
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      frame = parsed as { [key: string]: unknown };
    } catch {
      this.log("ignored a line from the bridge that is not a JSON object");
      return;
    }
    if (frame.protocol_version !== PROTOCOL_VERSION) {
      this.log("ignored a frame of another protocol_version");
      return;
    }
    const id = typeof frame.request_id === "string" ? frame.request_id : undefined;
    // It answers: only a frame about a request still waiting counts. A bridge that prints
    // stray or stale frames and never answers must still be paused after two hangs.
    const about = frame.type === "provider_request" ? frame.parent_request_id : id;
    if (typeof about === "string" && this.pending.has(about)) this.hangs = 0;
    switch (frame.type) {
      case "result":
        if (!id) return;
        if (frame.ok === true) this.settle(id, undefined, frame.result);
        else this.settle(id, new BridgeFailure(String(frame.code ?? "error"), String(frame.error ?? "failed")));
        return;
      case "error":
        this.log(`bridge error: ${String(frame.code)}: ${String(frame.error)}`);
        if (id) this.settle(id, new BridgeFailure(String(frame.code ?? "error"), String(frame.error ?? "failed")));
        return;
      case "provider_request":
        if (id) void this.answerProvider(frame as unknown as ProviderRequest);
        return;
      default:
        this.log("ignored a frame of an unknown type");
    }
  }

  private async answerProvider(request: ProviderRequest): Promise<void> {
    const child = this.child;
    if (!child) return;
    const handler = this.options.provider;
    const abort = new AbortController();
    this.providerAborts.set(request.request_id, abort);
    let answer: { [key: string]: unknown };
    try {
      if (!handler) throw new Error("this host has no model to offer");
      const data = await handler(request, abort.signal);
      answer = { ok: true, data };
    } catch (error) {
      // The bridge falls back to rules; the message is the host's, never the conversation.
      answer = { ok: false, error: describe(error).slice(0, 200) };
    } finally {
      this.providerAborts.delete(request.request_id);
    }
    if (this.child !== child) return;
    this.write(child, {
      protocol_version: PROTOCOL_VERSION,
      type: "provider_response",
      request_id: request.request_id,
      ...answer,
    });
  }

  private write(child: ChildProcessWithoutNullStreams, frame: { [key: string]: unknown }): void {
    let line: string;
    try {
      line = JSON.stringify(frame);
    } catch (error) {
      const id = frame.request_id;
      if (typeof id === "string") this.settle(id, new BridgeFailure("invalid_request", "request is not JSON"));
      return;
    }
    if (Buffer.byteLength(line, "utf8") > MAX_FRAME_BYTES) {
      const id = frame.request_id;
      if (typeof id === "string" && frame.type === "request") {
        this.settle(id, new BridgeFailure("frame_too_large", `request over ${MAX_FRAME_BYTES} bytes`));
      }
      return;
    }
    child.stdin.write(line + "\n");
  }

  private settle(id: string, failure?: BridgeFailure, value?: unknown): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (failure) pending.reject(failure);
    else pending.resolve(value);
  }

  private failAll(code: string, message: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, new BridgeFailure(code, message));
    for (const abort of this.providerAborts.values()) abort.abort();
    this.providerAborts.clear();
  }

  private log(line: string): void {
    this.options.log?.(`contextward: ${line}`);
  }
}

/**
 * Fail-open: run `action`; on any error, log one line and return `fallback`.
 * Host events use this so contextward can never stop the host's own work.
 */
export async function failOpen<T>(
  what: string,
  action: () => Promise<T>,
  fallback: T,
  log?: (line: string) => void,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    const code = error instanceof BridgeFailure ? error.code : "error";
    log?.(`contextward: ${what} skipped (${code}): ${describe(error).slice(0, 200)}`);
    return fallback;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Characters of one message's content that go into a frame: a tool output beyond this is
 * cut in its middle (its start and end are what a reader of it needs). */
export const MAX_MESSAGE_CHARS = 100_000;

/**
 * The messages that fit in one frame with room for the rest of the request (`budget`
 * bytes): each content cut to `MAX_MESSAGE_CHARS`, then the oldest messages after the
 * first left out until the rest fits. The first message (the owner's opening request)
 * and the newest ones are what a compaction must see; a request over the frame cap would
 * be refused whole, and the compaction would go on with no snapshot at all.
 */
export function fitToFrame<T extends { content: string }>(
  messages: readonly T[],
  budget: number = MAX_FRAME_BYTES - 256 * 1024,
): T[] {
  const cut = messages.map((message) => {
    if (message.content.length <= MAX_MESSAGE_CHARS) return message;
    const half = MAX_MESSAGE_CHARS / 2;
    const content = `${message.content.slice(0, half)}\n[… cut by contextward to fit the bridge …]\n${message.content.slice(-half)}`;
    return { ...message, content };
  });
  const size = (message: T) => Buffer.byteLength(JSON.stringify(message), "utf8") + 1;
  const [first, ...rest] = cut;
  if (first === undefined) return cut;
  let total = cut.reduce((sum, message) => sum + size(message), 2);
  let drop = 0;
  while (total > budget && drop < rest.length - 1) {
    total -= size(rest[drop] as T);
    drop += 1;
  }
  return drop === 0 ? cut : [first, ...rest.slice(drop)];
}
