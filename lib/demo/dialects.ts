// The renderer of each dialect, keyed as the capture format names them (spec §6.2).
import type { Dialect } from '../capture/sse';
import { chatRenderer } from './dialect-chat';
import { messagesRenderer } from './dialect-messages';
import { responsesRenderer } from './dialect-responses';
import type { Renderer } from './dialect-shared';

export const RENDERERS: Record<Dialect, Renderer> = {
  responses: responsesRenderer,
  chat: chatRenderer,
  messages: messagesRenderer,
};
