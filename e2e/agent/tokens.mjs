// tokens.mjs: the token cost of automium-mcp's tool catalog, counted by a real
// tokenizer (gpt-tokenizer, o200k_base, pinned in package-lock.json) rather than
// by our own arithmetic.
//
//   node tokens.mjs BINARY [--budget] [--markdown]
//
// It starts BINARY on stdio, initializes at 2025-11-25, sends tools/list and
// takes the result line exactly as it arrived. "Wire" is the tokens of that
// whole JSON-RPC line; "visible" is, per tool, the tokens of the JSON of the
// name, description and inputSchema, the part a client typically passes to a
// model as the tool's definition. Whatever tools the server lists are counted,
// so a new tool is measured and budgeted without touching this file.
// With --budget it exits 1 when either total is over its budget.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

// The budgets of issue 30, for every tool the server lists.
export const WIRE_BUDGET = 6200;
export const VISIBLE_BUDGET = 3100;

export async function listToolsRaw(binary) {
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
			resolve({ line, msg });
		}
	});
	const request = (id, method, params) =>
		new Promise((resolve, reject) => {
			pending.set(id, resolve);
			child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
			setTimeout(() => reject(new Error(`${method}: no answer in 10s`)), 10000).unref();
		});
	try {
		await request(1, "initialize", {
			protocolVersion: "2025-11-25",
			capabilities: {},
			clientInfo: { name: "automium-tokens", version: "0.0.0" },
		});
		child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
		const { line, msg } = await request(2, "tools/list", {});
		if (msg.error || msg.result?.nextCursor) {
			throw new Error("tools/list: " + line.slice(0, 300));
		}
		return { line, tools: msg.result.tools };
	} finally {
		child.stdin.end();
		child.kill();
	}
}

export function measure({ line, tools }) {
	const rows = tools.map((t) => ({
		name: t.name,
		visible: countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
		description: countTokens(t.description ?? ""),
		input: countTokens(JSON.stringify(t.inputSchema)),
		output: countTokens(JSON.stringify(t.outputSchema ?? null)),
		wire: countTokens(JSON.stringify(t)),
	}));
	return {
		rows,
		wire: countTokens(line),
		visible: rows.reduce((n, r) => n + r.visible, 0),
		bytes: Buffer.byteLength(line),
	};
}

function markdown(m) {
	const out = [
		"| Tool | Visible (name + description + inputSchema) | of which description | inputSchema | outputSchema | Whole tool entry |",
		"|---|---:|---:|---:|---:|---:|",
	];
	for (const r of m.rows) {
		out.push(`| \`${r.name}\` | ${r.visible} | ${r.description} | ${r.input} | ${r.output} | ${r.wire} |`);
	}
	out.push(`| **all ${m.rows.length} tools** | **${m.visible}** | | | | tools/list line: **${m.wire}** (${m.bytes} bytes) |`);
	return out.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const [binary, ...flags] = process.argv.slice(2);
	if (!binary) {
		console.error("usage: node tokens.mjs BINARY [--budget] [--markdown]");
		process.exit(2);
	}
	const m = measure(await listToolsRaw(binary));
	if (flags.includes("--markdown")) {
		console.log(markdown(m));
	} else {
		for (const r of m.rows) {
			console.log(`${r.name}: visible ${r.visible} (description ${r.description}, input ${r.input}), output ${r.output}, entry ${r.wire}`);
		}
		console.log(`tools/list: ${m.rows.length} tools, wire ${m.wire} tokens (${m.bytes} bytes; budget ${WIRE_BUDGET}), visible ${m.visible} tokens (budget ${VISIBLE_BUDGET})`);
	}
	if (flags.includes("--budget")) {
		let over = false;
		if (m.wire > WIRE_BUDGET) {
			console.error(`FAIL tokens: tools/list is ${m.wire} tokens on the wire, over the budget of ${WIRE_BUDGET}`);
			over = true;
		}
		if (m.visible > VISIBLE_BUDGET) {
			console.error(`FAIL tokens: the tools' names, descriptions and input schemas are ${m.visible} tokens, over the budget of ${VISIBLE_BUDGET}`);
			over = true;
		}
		process.exit(over ? 1 : 0);
	}
}
