// answers.mjs: what a model reads of each tool's answer, counted by the pinned
// tokenizer (gpt-tokenizer, o200k_base), against the real binary.
//
//   node answers.mjs BINARY [--budget] [--markdown]
//
// It starts BINARY on stdio, initializes at 2025-11-25, and calls every tool
// with its good arguments from ../calls.json, and automium_compare_reports
// with the checkout's 2-planner Playwright fixture (testdata/playwright/
// report.json). "Text" is the tokens of the text content, what a model reads
// first; "structured" the tokens of the structured content's JSON. With
// --budget it exits 1 when the fixture's text is over 800 tokens or a
// comparison's text is over 6,000 (issue 36).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

export const FIXTURE_BUDGET = 800;
export const COMPARISON_BUDGET = 6000;

const here = new URL(".", import.meta.url);
const calls = JSON.parse(readFileSync(new URL("../calls.json", here), "utf8"));
const fixture = readFileSync(new URL("../../testdata/playwright/report.json", here), "utf8");

async function callAll(binary, list) {
	const child = spawn(binary, [], { stdio: ["pipe", "pipe", "inherit"] });
	const lines = createInterface({ input: child.stdout });
	const pending = new Map();
	lines.on("line", (line) => {
		let msg;
		try {
			msg = JSON.parse(line);
		} catch {
			return;
		}
		const resolve = pending.get(msg.id);
		if (resolve) {
			pending.delete(msg.id);
			resolve(msg);
		}
	});
	const request = (id, method, params) =>
		new Promise((resolve, reject) => {
			pending.set(id, resolve);
			child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
			setTimeout(() => reject(new Error(`${method}: no answer in 30s`)), 30000).unref();
		});
	try {
		await request(1, "initialize", {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "automium-answers", version: "0.0.0" },
		});
		child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
		const rows = [];
		let id = 2;
		for (const c of list) {
			const msg = await request(id++, "tools/call", { name: c.tool, arguments: c.args });
			const r = msg.result;
			if (!r || r.isError) {
				throw new Error(`${c.name}: ${JSON.stringify(msg).slice(0, 300)}`);
			}
			const text = r.content.map((b) => b.text ?? "").join("\n");
			rows.push({
				name: c.name,
				tool: c.tool,
				text: countTokens(text),
				structured: countTokens(JSON.stringify(r.structuredContent ?? null)),
				markdown: !text.startsWith("{"),
			});
		}
		return rows;
	} finally {
		child.stdin.end();
		child.kill();
	}
}

const checkout = {
	name: "the checkout's 2-planner Playwright fixture",
	tool: "automium_compare_reports",
	fixture: true,
	args: {
		corpusVersion: calls.tools.automium_compare_reports.good.corpusVersion,
		planners: [
			{ id: "baseline", vendor: "openai", model: "gpt-4.1-mini" },
			{ id: "challenger", vendor: "anthropic", model: "claude-sonnet-4" },
		],
		reports: [{ format: "playwright-json", content: fixture }],
		mapping: { planner: { from: "project" }, journey: { from: "annotation", name: "journey" } },
	},
};

if (import.meta.url === `file://${process.argv[1]}`) {
	const [binary, ...flags] = process.argv.slice(2);
	if (!binary) {
		console.error("usage: node answers.mjs BINARY [--budget] [--markdown]");
		process.exit(2);
	}
	const list = Object.entries(calls.tools).map(([tool, c]) => ({ name: tool, tool, args: c.good }));
	list.push(checkout);
	const rows = await callAll(binary, list);
	if (flags.includes("--markdown")) {
		console.log("| Call | Text (what the model reads) | Structured content (JSON) |\n|---|---:|---:|");
		for (const r of rows) {
			const name = r.name === r.tool ? `\`${r.tool}\`` : `\`${r.tool}\`, ${r.name}`;
			console.log(`| ${name} | ${r.text}${r.markdown ? " (Markdown)" : " (the JSON)"} | ${r.structured} |`);
		}
	} else {
		for (const r of rows) {
			console.log(`${r.name}: text ${r.text} tokens (${r.markdown ? "Markdown" : "JSON"}), structured ${r.structured}`);
		}
	}
	if (flags.includes("--budget")) {
		let over = false;
		for (const [i, r] of rows.entries()) {
			const budget = list[i].fixture ? FIXTURE_BUDGET : r.tool.startsWith("automium_compare_") ? COMPARISON_BUDGET : Infinity;
			if (r.text > budget) {
				console.error(`FAIL answers: ${r.name} reads ${r.text} tokens, over ${budget}`);
				over = true;
			}
		}
		process.exit(over ? 1 : 0);
	}
}
