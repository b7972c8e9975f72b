// The server events of the GA realtime transcription API that the tests play to a client, as
// the speech gateway sends them.

export const speechStarted = (item_id: string, audio_start_ms: number) => ({
  type: 'input_audio_buffer.speech_started',
  item_id,
  audio_start_ms,
});
export const speechStopped = (item_id: string, audio_end_ms: number) => ({
  type: 'input_audio_buffer.speech_stopped',
  item_id,
  audio_end_ms,
});
export const committed = (item_id: string, previous_item_id: string | null = null) => ({
  type: 'input_audio_buffer.committed',
  item_id,
  previous_item_id,
});
export const delta = (item_id: string, text: string) => ({
  type: 'conversation.item.input_audio_transcription.delta',
  item_id,
  content_index: 0,
  delta: text,
});
export const completed = (item_id: string, transcript: string) => ({
  type: 'conversation.item.input_audio_transcription.completed',
  item_id,
  content_index: 0,
  transcript,
});
