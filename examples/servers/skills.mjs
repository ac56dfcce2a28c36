// An example server with the skills extension over stdio: one skill, pdf-tools,
// with its SKILL.md and a supporting file references/FORMS.md.
import "../../fixtures/servers/skills.mjs";
