/**
 * MeMesh memory plugin for OpenClaw (a `kind: "memory"` plugin filling the memory slot).
 *
 * Source only: not published, and not tested in a live OpenClaw host; `make test` type-checks it with tsc.
 * It speaks to MeMesh's local HTTP API (`memesh serve`): auto-recall before each prompt, and three tools.
 * Each agent's writes carry an `agent:<id>` tag, and its recalls are limited to that tag.
 */

import { MemeshClient, formatMemories, readConfig } from "./memesh-client.ts";
import type { AgentTool, OpenClawPluginApi, OpenClawPluginEntry, ToolResult } from "./openclaw-api.ts";

const RECALL_QUERY_CHARS = 1000;

function text(message: string, details?: Record<string, unknown>): ToolResult {
  return details === undefined ? { content: [{ type: "text", text: message }] } : { content: [{ type: "text", text: message }], details };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The latest user message's text, for the auto-recall query. */
export function latestUserText(messages: unknown[] | undefined): string | undefined {
  for (const message of [...(messages ?? [])].reverse()) {
    if (message === null || typeof message !== "object") continue;
    const m = message as { role?: unknown; content?: unknown };
    if (m.role === "user" && typeof m.content === "string" && m.content.trim()) return m.content;
  }
  return undefined;
}

const plugin: OpenClawPluginEntry = {
  id: "memory-memesh",
  name: "Memory (MeMesh)",
  description: "MeMesh memory: recall before each prompt, and memory_recall / memory_store / memory_forget tools.",
  kind: "memory",

  register(api: OpenClawPluginApi): void {
    const config = readConfig(api.pluginConfig);
    const client = new MemeshClient(config);
    const cooldownUntil = new Map<string, number>(); // per agent: recall failed, skip auto-recall until then

    api.registerMemoryCapability?.({
      promptBuilder: ({ availableTools }) =>
        availableTools.has("memory_recall")
          ? ["MeMesh recalls related memories before each prompt; call memory_recall for anything it missed."]
          : [],
    });

    const tool = (name: string, build: (agentId: string) => AgentTool): void => {
      api.registerTool?.((ctx) => (ctx.agentId ? build(ctx.agentId) : null), { name });
    };

    tool("memory_recall", (agentId) => ({
      name: "memory_recall",
      label: "Memory Recall",
      description: "Search long-term memory: past decisions, preferences, lessons and project context.",
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", description: "What to look for" },
          limit: { type: "integer", minimum: 1, maximum: 20, description: "At most this many (default 5)" },
        },
        required: ["query"],
        additionalProperties: false,
      },
      async execute(_id, params) {
        const query = typeof params.query === "string" ? params.query : "";
        const limit = typeof params.limit === "number" && Number.isInteger(params.limit) ? params.limit : 5;
        try {
          const found = await client.recall(query, Math.min(Math.max(limit, 1), 20), `agent:${agentId}`);
          return found.length ? text(formatMemories(found), { count: found.length }) : text("No memories matched.", { count: 0 });
        } catch (error) {
          return text(`Memory recall failed: ${reason(error)}`);
        }
      },
    }));

    tool("memory_store", (agentId) => ({
      name: "memory_store",
      label: "Memory Store",
      description: "Keep a fact, decision, preference or lesson in long-term memory (first line becomes its title).",
      parameters: {
        type: "object",
        properties: {
          text: { type: "string", description: "What to remember" },
          tags: { type: "array", items: { type: "string" }, description: "Optional tags, e.g. topic:billing" },
        },
        required: ["text"],
        additionalProperties: false,
      },
      async execute(_id, params) {
        const note = typeof params.text === "string" ? params.text : "";
        if (!note.trim()) return text("Nothing stored: text is empty.");
        const tags = Array.isArray(params.tags) ? params.tags.filter((t): t is string => typeof t === "string") : [];
        try {
          const name = await client.remember(note, [...tags, `agent:${agentId}`]);
          return text(`Stored as "${name}".`, { name });
        } catch (error) {
          return text(`Memory store failed: ${reason(error)}`);
        }
      },
    }));

    tool("memory_forget", (agentId) => ({
      name: "memory_forget",
      label: "Memory Forget",
      description: "Archive one memory by its exact name (restorable; nothing is destroyed).",
      parameters: {
        type: "object",
        properties: { name: { type: "string", description: "The memory's exact name, as recall shows it" } },
        required: ["name"],
        additionalProperties: false,
      },
      async execute(_id, params) {
        const name = typeof params.name === "string" ? params.name : "";
        try {
          // Only this agent's memories: the name must come back from a recall scoped to the agent's tag.
          const mine = await client.recall(name, 20, `agent:${agentId}`);
          if (!mine.some((m) => m.name === name)) return text(`No memory of this agent is named "${name}".`);
          return text((await client.forget(name)) ? `Archived "${name}".` : `"${name}" was not archived.`);
        } catch (error) {
          return text(`Memory forget failed: ${reason(error)}`);
        }
      },
    }));

    if (!config.autoRecall) return;
    api.on?.("before_prompt_build", async (event, ctx) => {
      const agentId = ctx.agentId;
      const query = (event.prompt ?? latestUserText(event.messages) ?? "").slice(0, RECALL_QUERY_CHARS).trim();
      if (!agentId || query.length < 3 || (cooldownUntil.get(agentId) ?? 0) > Date.now()) return undefined;
      try {
        const found = await client.recall(query, config.recallLimit, `agent:${agentId}`);
        return found.length ? { prependContext: `[MeMesh recall]\n${formatMemories(found)}` } : undefined;
      } catch (error) {
        // A slow or stopped server must not stall every turn: skip auto-recall for a while.
        cooldownUntil.set(agentId, Date.now() + config.cooldownMs);
        api.logger?.warn?.(`memory-memesh: recall failed, paused for ${config.cooldownMs} ms: ${reason(error)}`);
        return undefined;
      }
    });
  },
};

export default plugin;
