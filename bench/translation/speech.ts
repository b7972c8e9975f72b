/**
 * What the writer of `pnpm bench translation` says: the council meeting of the translation tests
 * (COUNCIL_MEETING, five paragraphs) and five more paragraphs of the same meeting, so that a run
 * lasts long enough at 3 captions a second to give percentiles (about 100 captions when cut as
 * the capture page cuts them with its 3 s interval).
 */
import { COUNCIL_MEETING, COUNCIL_VOCABULARY } from '@live-captions/test-services';

const MORE_OF_THE_MEETING = [
  'Before the public comments, the chair asked the planning officer, Daniel Mbeki, to report on the new housing on the old factory site. He said that the developer has changed the plans twice since the spring. The buildings will now have four floors instead of six, and there will be more space for trees and bicycles. The council will vote on the plans at the next meeting, after the residents have had time to read them.',
  'The first speaker was a teacher from Elm Park school. She told the council that the crossing in front of the school is dangerous in the morning, when parents drop off their children. Last month a boy was almost hit by a van! She asked for a crossing guard and a lower speed limit on the street. The chair promised that the traffic committee would look at the crossing before the end of the year.',
  'The second speaker, Mrs. Alvarez, has run the bakery on Main Street for twenty years. She said that the new parking rules have kept her customers away, because they can only stay for thirty minutes. Would the council consider one hour instead? Several other shop owners agreed with her, and one of them said that two shops on the street had already closed this winter.',
  'Councillor Dubois answered that the parking rules were meant to help the shops, not to hurt them. The old rules let commuters park all day, so that customers found no space at all. However, she agreed that thirty minutes may be too short for some visits, and she proposed a trial of one hour for six months. The council will review the results in the autumn, together with the shop owners.',
  'The last speaker asked about the recycling centre, which has been closed on Saturdays since the summer. The chair explained that the centre lost two of its workers, and that the town is hiring new staff. Until then, residents can take their glass and paper to the depot on Station Road, which is open every day except Sunday. The chair thanked the speakers and closed the public comments.',
];

/** The speech, paragraph by paragraph. */
export const BENCH_SPEECH = [...COUNCIL_MEETING, ...MORE_OF_THE_MEETING];

/** The names in it an operator would put in the room's vocabulary (they must survive translation). */
export const BENCH_VOCABULARY = [
  ...COUNCIL_VOCABULARY,
  'Daniel Mbeki',
  'Elm Park',
  'Alvarez',
  'Main Street',
  'Dubois',
  'Station Road',
];
