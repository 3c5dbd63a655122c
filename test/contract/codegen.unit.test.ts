/**
 * What codegen (codegen/) made from the spec, read as the service reads it: the operation
 * table's routes follow the spec's paths, and the MCP tool list offers exactly the operations
 * marked for MCP, each with the operation's own arguments and scope. (That the generated files
 * are today's codegen output is checked by openapi-contract.test.ts, which runs codegen itself.)
 */
import { mcpTools } from '../../src/generated/mcp-tools';
import { operations } from '../../src/generated/operations';

describe('codegen', () => {
  it("turns each path's parameters into Express's route and the path parameters' list", () => {
    for (const operation of Object.values(operations)) {
      const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      expect(operation.expressPath).toBe(operation.path.replace(/\{(\w+)\}/g, ':$1'));
      expect([...operation.pathParams].sort()).toEqual(names.sort());
    }
  });

  it('lists as MCP tools exactly the operations marked for MCP, shown with arguments of theirs and their scope', () => {
    const marked = Object.values(operations).filter((operation) => operation.mcp);
    expect(mcpTools.map((tool) => tool.name).sort()).toEqual(
      marked.map((operation) => operation.name).sort(),
    );
    for (const tool of mcpTools) {
      const operation = operations[tool.name as keyof typeof operations];
      const argumentsOf = [...operation.pathParams, ...operation.queryParams, ...operation.bodyParams];
      // A tool may show fewer arguments than the operation takes (shortcuts a model need not see).
      const unknown = Object.keys(tool.inputSchema.properties).filter((name) => !argumentsOf.includes(name));
      expect({ tool: tool.name, unknown }).toEqual({ tool: tool.name, unknown: [] });
      expect(Object.keys(tool.inputSchema.properties)).toEqual(
        expect.arrayContaining(tool.inputSchema.required),
      );
      expect(tool.inputSchema.required).toEqual(expect.arrayContaining([...operation.pathParams]));
      expect({ tool: tool.name, scope: tool.scope }).toEqual({ tool: tool.name, scope: operation.scope });
      if (tool.scope === 'read') expect(tool.annotations.readOnlyHint).toBe(true);
    }
  });
});
