// The `bedrock` chat adapter: Converse / ConverseStream at
// `{endpoint}/model/{modelId}/converse-stream`, answered as AWS's binary event stream.
import type { ChatAdapter } from '../types.js';
import { bedrockErrorFromResponse } from './errors.js';
import { bedrockOutputToolName } from './output-tool.js';
import { buildConverseRequest } from './request.js';
import { ConverseStreamParser } from './stream.js';

export const bedrockChatAdapter: ChatAdapter = {
  kind: 'bedrock',
  takesDocuments: true,
  framing: 'aws-eventstream',
  buildRequest: buildConverseRequest,
  createStreamParser: (target, request) => new ConverseStreamParser(target.model, bedrockOutputToolName(request)),
  parseError: bedrockErrorFromResponse,
};
