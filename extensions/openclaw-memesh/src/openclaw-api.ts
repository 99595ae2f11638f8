/**
 * The part of OpenClaw's plugin API this plugin uses, declared here so the source type-checks without the
 * `openclaw` package (which is not a dependency: the plugin is source-only and has not run in a live host).
 * Shapes follow OpenClaw's documented plugin contract: a default-exported entry with `register(api)`.
 */

export interface TextContent {
  type: "text";
  text: string;
}

export interface ToolResult {
  content: TextContent[];
  details?: Record<string, unknown>;
}

export interface JsonSchemaObject {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface AgentTool {
  name: string;
  label: string;
  description: string;
  parameters: JsonSchemaObject;
  execute(toolCallId: string, params: Record<string, unknown>): Promise<ToolResult>;
}

export interface ToolContext {
  agentId?: string;
  sessionKey?: string;
}

export interface PromptBuildEvent {
  prompt?: string;
  messages?: unknown[];
}

export interface PromptBuildResult {
  prependContext?: string;
}

export interface PluginLogger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
}

export interface MemoryCapability {
  promptBuilder?: (params: { availableTools: Set<string> }) => string[];
}

export interface OpenClawPluginApi {
  pluginConfig?: unknown;
  logger?: PluginLogger;
  registerMemoryCapability?(capability: MemoryCapability): void;
  registerTool?(factory: (ctx: ToolContext) => AgentTool | null, options: { name: string }): void;
  on?(
    event: "before_prompt_build",
    handler: (event: PromptBuildEvent, ctx: ToolContext) => Promise<PromptBuildResult | undefined>,
  ): void;
}

export interface OpenClawPluginEntry {
  id: string;
  name: string;
  description: string;
  kind: "memory";
  register(api: OpenClawPluginApi): void;
}
