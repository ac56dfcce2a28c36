// An example 2026-07-28 server with the tasks extension over stdio: tool `research`
// {steps} runs as a task that works for `steps` polls, then answers with text.
import "../../fixtures/servers/modern-tasks.mjs";
