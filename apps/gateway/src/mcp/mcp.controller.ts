import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { createMcpServer } from '@worktrack/mcp';
import { createWorktrackClient } from '@worktrack/sdk';
import { Access } from '../auth/access.decorator';
import { GatewayConfig } from '../gateway.config';

/** Where the MCP server is served: outside /v1, on the API's port. */
export const MCP_PATH = 'mcp';

/**
 * The MCP server over streamable HTTP at /mcp, stateless (a server
 * and transport per request). The route is behind the same guards as the API
 * (authentication, scope rule `read`, the D-5 limit): without a valid bearer
 * it answers 401 UNAUTHENTICATED before any tool is listed. The tools call
 * the public API with the caller's own credential (MCP_API_URL, default this
 * gateway over loopback), so scopes and rate limits apply to every call.
 */
@ApiExcludeController()
@Controller(MCP_PATH)
@Access('read')
export class McpController {
  constructor(private readonly config: GatewayConfig) {}

  @Post()
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.serve(request, reply);
  }

  /**
   * Stateless: there is no event stream to open (GET) and no session to end
   * (DELETE). The MCP protocol asks for 405 here (clients then carry on with
   * POST only); the body keeps the D-1 envelope with NOT_FOUND, the D-2 code of
   * a route that does not exist for this method.
   */
  @Get()
  get(@Res() reply: FastifyReply): void {
    this.notAllowed(reply, 'GET');
  }

  @Delete()
  remove(@Res() reply: FastifyReply): void {
    this.notAllowed(reply, 'DELETE');
  }

  private notAllowed(reply: FastifyReply, method: string): void {
    void reply
      .status(405)
      .header('allow', 'POST')
      .send({
        error: { code: ErrorCode.NOT_FOUND, message: `${method} /mcp is not served: this MCP server is stateless and answers POST only.` },
      });
  }

  /**
   * What the MCP transport would refuse in its own JSON-RPC form is refused
   * here in the D-1 envelope, like every other route (the fuzz stage sends
   * hostile bodies here too): a body that is not a JSON-RPC message or a batch
   * of them is 400 VALIDATION_FAILED. The Accept header is not held against a
   * client: every answer of this stateless server is JSON.
   */
  private refused(request: FastifyRequest, reply: FastifyReply): boolean {
    const body: unknown = request.body;
    const messages = Array.isArray(body) ? body : [body];
    const bad = messages.length === 0 ? 0 : messages.findIndex((m) => !JSONRPCMessageSchema.safeParse(m).success);
    if (bad === -1) {
      request.raw.headers.accept = 'application/json, text/event-stream';
      return false;
    }
    void reply.status(400).send({
      error: {
        code: ErrorCode.VALIDATION_FAILED,
        message: 'The body must be a JSON-RPC 2.0 message of the Model Context Protocol, or a non-empty array of them.',
        details: [{ path: Array.isArray(body) ? String(bad) : '', issue: 'not a JSON-RPC 2.0 message' }],
      },
    });
    return true;
  }

  private async serve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (this.refused(request, reply)) return;
    // The guard accepted exactly this header.
    const token = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? '').trim())?.[1] ?? '';
    const client = createWorktrackClient({ baseUrl: this.apiUrl(request), token });
    const server = createMcpServer(client);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // The transport writes the raw response: keep the headers set so far (X-Request-Id, RateLimit-*, Cache-Control).
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  private apiUrl(request: FastifyRequest): string {
    if (this.config.MCP_API_URL) return this.config.MCP_API_URL;
    return `http://127.0.0.1:${request.socket.localPort ?? this.config.HTTP_PORT}`;
  }
}
