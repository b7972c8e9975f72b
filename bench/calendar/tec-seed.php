<?php
// `pnpm bench calendar --tec`: writes the bench's events into the real TEC, run inside WordPress:
//   php $TEC_DIR/tools/wp-boot.php bench/calendar/tec-seed.php <events.json> seed|check
// The JSON is what tec.ts read back from our seeded database (venues, organizers, terms, events);
// prints {"events": {"<our id>": <TEC id>, ...}} on stdout. `check` prints the ids an earlier
// `seed` of the same file stored (events null when it was another file or none): seeding 10,000
// events takes 10-17 minutes here, and the bench's seed is the same all day.
//
// Through tribe_create_event() (TEC's own API, the one its REST POST handler calls) rather than
// REST POSTs over HTTP: the same meta, term links and custom-table rows, without booting
// WordPress for every event.
wp_set_current_user( 1 ); // tax_input needs the right to assign terms
$hash = md5_file( $args[0] );
if ( 'check' === ( $args[1] ?? 'seed' ) ) {
	$stored = get_option( 'cal_bench_seed' );
	echo json_encode( [ 'events' => is_array( $stored ) && $stored['hash'] === $hash ? (object) $stored['events'] : null ] );
	return;
}
$in    = json_decode( file_get_contents( $args[0] ), true );
$start = microtime( true );
global $wpdb;

// One transaction per batch: MariaDB otherwise flushes its log at each of the ~40 statements an
// event costs.
wp_defer_term_counting( true );
$wpdb->query( 'START TRANSACTION' );

$term_ids = [];
foreach ( $in['terms'] as $term ) {
	$made = wp_insert_term( $term['name'], $term['taxonomy'], [ 'slug' => $term['slug'], 'description' => $term['description'] ] );
	if ( is_wp_error( $made ) ) {
		fwrite( STDERR, "term {$term['slug']}: {$made->get_error_message()}\n" );
		exit( 1 );
	}
	$term_ids[ $term['taxonomy'] . ':' . $term['slug'] ] = (int) $made['term_id'];
}

$venue_ids = [];
foreach ( $in['venues'] as $venue ) {
	$venue_ids[ $venue['id'] ] = tribe_create_venue( [
		'Venue'       => $venue['title'],
		'Address'     => $venue['address'],
		'City'        => $venue['city'],
		'Country'     => $venue['country'],
		'post_status' => 'publish',
	] );
}
$organizer_ids = [];
foreach ( $in['organizers'] as $organizer ) {
	$organizer_ids[ $organizer['id'] ] = tribe_create_organizer( [
		'Organizer'   => $organizer['title'],
		'Email'       => $organizer['email'],
		'Phone'       => $organizer['phone'],
		'post_status' => 'publish',
	] );
}

$map = [];
foreach ( $in['events'] as $i => $event ) {
	[ $start_date, $start_time ] = explode( ' ', $event['start'] );
	[ $end_date, $end_time ]     = explode( ' ', $event['end'] );
	$terms = [ 'tribe_events_cat' => [], 'post_tag' => [] ];
	foreach ( $event['terms'] as $key ) {
		$terms[ explode( ':', $key )[0] ][] = $term_ids[ $key ];
	}
	// The arguments TEC's REST POST handler (Single_Event::prepare_postarr) builds.
	$postarr = [
		'post_author'    => 1,
		'post_title'     => $event['title'],
		'post_content'   => $event['description'],
		'post_status'    => $event['status'],
		'EventTimezone'  => $event['timezone'],
		'EventAllDay'    => $event['all_day'],
		'EventStartDate' => $start_date,
		'EventStartTime' => $start_time,
		'EventEndDate'   => $end_date,
		'EventEndTime'   => $end_time,
		'tax_input'      => $terms,
		'feature_event'  => $event['featured'],
	];
	if ( null !== $event['cost'] ) {
		$postarr['EventCost'] = $event['cost'];
	}
	if ( $event['hide_from_listings'] ) {
		$postarr['EventHideFromUpcoming'] = 'yes';
	}
	if ( null !== $event['venue'] ) {
		$postarr['venue'] = [ 'VenueID' => $venue_ids[ $event['venue'] ] ];
	}
	if ( $event['organizers'] ) {
		$postarr['organizer'] = [ 'OrganizerID' => array_map( fn( $id ) => $organizer_ids[ $id ], $event['organizers'] ) ];
	}
	$id = tribe_create_event( $postarr );
	if ( is_wp_error( $id ) || ! $id ) {
		fwrite( STDERR, "event {$event['id']}: " . ( is_wp_error( $id ) ? $id->get_error_message() : 'not created' ) . "\n" );
		exit( 1 );
	}
	$map[ $event['id'] ] = $id;
	if ( 0 === ( $i + 1 ) % 500 ) {
		$wpdb->query( 'COMMIT' );
		$wpdb->query( 'START TRANSACTION' );
		// The object cache of this long process would otherwise hold every post and its meta.
		wp_cache_flush();
		fwrite( STDERR, sprintf( "%d events in TEC, %.1f s\n", $i + 1, microtime( true ) - $start ) );
	}
}
$wpdb->query( 'COMMIT' );
wp_defer_term_counting( false ); // recounts the terms it deferred
update_option( 'cal_bench_seed', [ 'hash' => $hash, 'events' => $map ], false );
echo json_encode( [ 'events' => (object) $map ] );
