// A misbehaving MCP server over stdio for ikigai's client tests, speaking
// raw JSON-RPC lines. The mode (argv[2]) says how it misbehaves:
//   ok       answers like a server: tools "env" (its environment's names),
//            "crash" (see below), "image" (text and an image) and "slow"
//            (never answers; writes MARKER.started when called and
//            MARKER.cancelled when told notifications/cancelled) and "grow"
//            (adds the tool "grown", saying notifications/tools/list_changed
//            before its answer)
//   hang     reads initialize and never answers
//   garbage  prints a line that is not JSON instead of answering
// "crash" exits with code 3 on its first call in a process whose marker file
// (argv[3]) does not exist yet, after creating it; so the restarted server
// answers the next call.
const fs = require('fs');
const readline = require('readline');
const mode = process.argv[2] || 'ok';
const marker = process.argv[3] || '';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
let grown = false;
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    if (mode === 'hang') return;
    if (mode === 'garbage') {
      process.stdout.write('Server starting on port 1234...\n');
      return;
    }
    send({ jsonrpc: '2.0', id: msg.id, result: {
      protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'fake', version: '1' } } });
  } else if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [
      { name: 'env', description: 'Its environment', inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true } },
      { name: 'crash', description: 'Dies once', inputSchema: { type: 'object' } },
      { name: 'image', description: 'An image', inputSchema: { type: 'object' } },
      { name: 'slow', description: 'Never answers', inputSchema: { type: 'object' } },
      { name: 'grow', description: 'Adds a tool', inputSchema: { type: 'object' } },
    ].concat(grown ? [{ name: 'grown', description: 'New', inputSchema: { type: 'object' } }] : []) } });
  } else if (msg.method === 'tools/call') {
    const name = msg.params.name;
    if (name === 'env') {
      const text = Object.keys(process.env).sort().join('\n');
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });
    } else if (name === 'crash') {
      if (marker && !fs.existsSync(marker)) {
        fs.writeFileSync(marker, 'crashed once');
        process.stderr.write('fake: about to crash\n');
        process.exit(3);
      }
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'survived' }] } });
    } else if (name === 'grow') {
      grown = true;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'grown' }] } });
    } else if (name === 'slow') {
      fs.writeFileSync(marker + '.started', String(msg.id));
    } else if (name === 'image') {
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [
        { type: 'text', text: 'here:' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }] } });
    } else {
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'Unknown tool: ' + name } });
    }
  } else if (msg.method === 'notifications/cancelled') {
    fs.writeFileSync(marker + '.cancelled', JSON.stringify(msg.params));
  } else if (msg.id !== undefined && msg.method) {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no' } });
  }
});
