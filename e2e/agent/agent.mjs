// agent.mjs: an agent's first try at the spec's developer path (seeds/000,
// "Developer Experience"), with the TypeScript MCP SDK client pinned in
// package-lock.json, against the compact catalog.
//
//   node agent.mjs BINARY
//
// The agent knows the tool and resource names the spec gives and nothing
// else: every ID, every argument and the journey itself come from what the
// server answers (resources, the draft_journey prompt, earlier tool results).
// The SDK client validates each structured result against the tool's
// advertised output schema, $defs and $refs included. Any error, tool error
// or invalid journey fails the run: the path must pass at the first try.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.argv[2];
if (!binary) {
	console.error("usage: node agent.mjs BINARY");
	process.exit(2);
}

const client = new Client({ name: "automium-agent-e2e", version: "0.0.0" });
await client.connect(new StdioClientTransport({ command: binary, args: [], stderr: "inherit" }));

let steps = 0;
let errors = 0;
function step(name, detail) {
	steps++;
	console.log(`PASS ${steps}. ${name}${detail ? ": " + detail : ""}`);
}
function fail(name, why) {
	errors++;
	console.log(`FAIL ${name}: ${why}`);
}
async function readJSON(uri) {
	const res = await client.readResource({ uri });
	return JSON.parse(res.contents[0].text);
}
async function call(name, args) {
	const res = await client.callTool({ name, arguments: args });
	if (res.isError) {
		throw new Error(`${name} answered a tool error: ${res.content.map((c) => c.text).join(" ").slice(0, 600)}`);
	}
	return res.structuredContent;
}

try {
	// The client lists tools once, as a host does; the SDK keeps the output
	// schemas to validate results with.
	const { tools } = await client.listTools();
	step("tools/list", `${tools.length} tools`);

	// 1. Inspect automium://apps.
	const { corpusVersion, apps } = await readJSON("automium://apps");
	step("read automium://apps", `${apps.length} apps, corpus ${corpusVersion}`);

	// 2. Inspect automium://fixtures: the first fixture of the first app.
	const { fixtures } = await readJSON("automium://fixtures");
	const fixture = fixtures.find((f) => f.appId === apps[0].id);
	if (!fixture) throw new Error(`automium://fixtures lists no fixture of ${apps[0].id}`);
	step("read automium://fixtures", `fixture ${fixture.id} of app ${fixture.appId}`);

	// 3. draft_journey: the prompt gives the rules and a journey of this
	// fixture that compiles; the agent starts from it, as the prompt says.
	const goal = "Check the first screen of the app shows what the fixture promises";
	const prompt = await client.getPrompt({ name: "draft_journey", arguments: { appId: fixture.appId, fixtureId: fixture.id, goal } });
	const text = prompt.messages.map((m) => m.content.text).join("\n");
	const block = text.match(/```json\n([\s\S]*?)\n```/);
	if (!block) throw new Error("draft_journey gave no JSON journey to start from");
	const journey = { ...JSON.parse(block[1]), id: `agent-${fixture.id}`, goal };
	step("prompts/get draft_journey", `${journey.steps.length} steps, ${journey.assertions.length} assertions`);

	// 4. Compile it.
	const compiled = await call("automium_compile_journey", journey);
	if (!compiled.valid) throw new Error(`the journey did not compile: ${JSON.stringify(compiled.errors).slice(0, 600)}`);
	step("automium_compile_journey", `valid, ${compiled.journey.digest}`);

	// 5. Submit a run of it: the journey carries its app and fixture.
	const planner = { id: "baseline", vendor: "openai", model: "gpt-4.1-mini" };
	const run = await call("automium_create_run_submission", {
		journey,
		journeyDigest: compiled.journey.digest,
		planner,
		environmentProfileId: fixture.environmentProfileIds[0],
	});
	step("automium_create_run_submission", `${run.runId}, status ${run.status}`);

	// 6. The replay summary of a failed first attempt and one retry.
	const replay = await call("automium_get_replay_summary", {
		runId: run.runId,
		verdict: "failed",
		retryCount: 1,
		artifactManifestRef: run.artifactManifestRef,
	});
	// The field's name is the one the tool's output schema advertises.
	const replayTool = tools.find((t) => t.name === "automium_get_replay_summary");
	const kindsField = Object.keys(replayTool.outputSchema.properties).find((p) => /ArtifactKinds$/.test(p));
	const kinds = replay[kindsField];
	if (!Array.isArray(kinds) || kinds.length === 0) throw new Error("the replay summary names no required artifact kinds");
	step("automium_get_replay_summary", `required kinds ${kinds.join(", ")}`);

	// 7. A manifest holding every kind the replay requires, under the
	// fixture's artifact root.
	const manifest = await call("automium_get_artifact_manifest", {
		runId: run.runId,
		root: fixture.artifactRoot,
		entries: kinds.map((kind) => ({ kind, path: `attempt-1/${kind}` })),
		replay: { verdict: "failed", retryCount: 1 },
	});
	step("automium_get_artifact_manifest", `${manifest.entries.length} entries, ${manifest.digest ?? ""}`);

	// 8. Compare planners on the app at the corpus version.
	const report = await call("automium_compare_planners", {
		corpusVersion,
		appIds: [fixture.appId],
		planners: [planner, { id: "challenger", vendor: "anthropic", model: "claude-sonnet-4" }],
		repetitions: 2,
	});
	step("automium_compare_planners", `${report.planners.length} planners, ${report.pairs.length} pair(s), modeled ${report.modeled}`);
} catch (e) {
	fail("developer path", e.message);
} finally {
	await client.close();
}
console.log(`agent: ${steps} steps passed, ${errors} errors`);
process.exit(errors === 0 && steps === 9 ? 0 : 1);
