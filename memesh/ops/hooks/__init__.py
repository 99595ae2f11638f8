"""The seven hook events as operations: what transports/hooks held (the session's folder and project, settings,
the transcript, note folders, git, the second connection), now reached through each event's protocol of
`memesh.app.hook_resources.HookResources`. Each gathers, decides with the pure rules of `memesh.core`, applies through
`memesh.ops.capture`, `session_memory` and `message_reminders`, and answers a `HookAnswer`: what the host reads and
one outcome record per capture (schemas/hooks/answer.output.json)."""
