/**
 * MeMesh's HTTP API (`memesh serve`, loopback by default): recall, remember and forget. Every answer is
 * `{success: true, data}` or `{success: false, errorCode, error}`; a failure is thrown with MeMesh's own sentence.
 * Memory text travels in request bodies, never on a command line where other local processes could read it.
 */

export interface MemeshConfig {
  baseUrl: string;
  token: string | undefined;
  autoRecall: boolean;
  recallLimit: number;
  timeoutMs: number;
  cooldownMs: number;
}

export const DEFAULT_CONFIG: MemeshConfig = {
  baseUrl: "http://127.0.0.1:3737",
  token: undefined,
  autoRecall: true,
  recallLimit: 3,
  timeoutMs: 5000,
  cooldownMs: 60000,
};

export interface RecalledMemory {
  name: string;
  type: string;
  /** The memory's title (memory_store makes the note's first line its title); null when it has none. */
  title: string | null;
  observations: string[];
}

function integer(value: unknown, fallback: number, low: number, high: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= low && value <= high ? value : fallback;
}

/** The plugin's config as OpenClaw hands it over (unknown), with every field checked and defaulted. */
export function readConfig(raw: unknown): MemeshConfig {
  const given = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  return {
    baseUrl: typeof given.baseUrl === "string" && given.baseUrl ? given.baseUrl.replace(/\/+$/, "") : DEFAULT_CONFIG.baseUrl,
    token: typeof given.token === "string" && given.token ? given.token : undefined,
    autoRecall: typeof given.autoRecall === "boolean" ? given.autoRecall : DEFAULT_CONFIG.autoRecall,
    recallLimit: integer(given.recallLimit, DEFAULT_CONFIG.recallLimit, 1, 20),
    timeoutMs: integer(given.timeoutMs, DEFAULT_CONFIG.timeoutMs, 100, 60000),
    cooldownMs: integer(given.cooldownMs, DEFAULT_CONFIG.cooldownMs, 0, 3600000),
  };
}

export class MemeshError extends Error {
  constructor(
    message: string,
    readonly errorCode: string,
  ) {
    super(message);
  }
}

function asMemories(data: unknown): RecalledMemory[] {
  const entities =
    data !== null && typeof data === "object" && Array.isArray((data as { entities?: unknown }).entities)
      ? ((data as { entities: unknown[] }).entities)
      : [];
  const out: RecalledMemory[] = [];
  for (const entity of entities) {
    if (entity === null || typeof entity !== "object") continue;
    const e = entity as Record<string, unknown>;
    if (typeof e.name !== "string") continue;
    const observations = Array.isArray(e.observations) ? e.observations.filter((o) => typeof o === "string") : [];
    const title = typeof e.title === "string" && e.title.trim() ? e.title.trim() : null;
    out.push({ name: e.name, type: typeof e.type === "string" ? e.type : "memory", title, observations });
  }
  return out;
}

export class MemeshClient {
  constructor(private readonly config: MemeshConfig) {}

  private async post(route: string, body: Record<string, unknown>): Promise<unknown> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.config.token !== undefined) headers.Authorization = `Bearer ${this.config.token}`;
    const response = await fetch(`${this.config.baseUrl}${route}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    let answer: unknown;
    try {
      answer = await response.json();
    } catch {
      throw new MemeshError(`MeMesh answered HTTP ${response.status} without a JSON body`, "server.internal");
    }
    const envelope = (answer ?? {}) as { success?: unknown; data?: unknown; error?: unknown; errorCode?: unknown };
    if (envelope.success !== true) {
      const message = typeof envelope.error === "string" ? envelope.error : `HTTP ${response.status}`;
      throw new MemeshError(message, typeof envelope.errorCode === "string" ? envelope.errorCode : "server.internal");
    }
    return envelope.data;
  }

  async recall(query: string, limit: number, tag?: string): Promise<RecalledMemory[]> {
    const body: Record<string, unknown> = { query, limit };
    if (tag !== undefined) body.tag = tag;
    return asMemories(await this.post("/v1/recall", body));
  }

  async remember(note: string, tags: string[]): Promise<string> {
    const data = await this.post("/v1/remember", { note, tags });
    const name = data !== null && typeof data === "object" ? (data as { name?: unknown }).name : undefined;
    return typeof name === "string" ? name : "";
  }

  async forget(name: string): Promise<boolean> {
    const data = await this.post("/v1/forget", { name });
    return data !== null && typeof data === "object" && (data as { archived?: unknown }).archived === true;
  }
}

/** Recalled memories as lines for a model: `- (type) name — title: first observations` (no ` — title` when the
 * memory has none). The name stays first and whole: memory_forget takes it exactly as recall shows it. */
export function formatMemories(memories: RecalledMemory[]): string {
  return memories
    .map((m) => {
      const label = m.title === null ? m.name : `${m.name} — ${m.title}`;
      return `- (${m.type}) ${label}: ${m.observations.slice(0, 3).join("; ")}`;
    })
    .join("\n");
}
