// Sample data for a brand-new database: enough events over several locations that paging shows.
import type { ImportLocation } from '../store/event-store.ts'

const places = [
  { name: 'Town Hall', address: '1 Market Square' },
  { name: 'Riverside Pavilion', address: '12 Quay Street' },
  { name: 'Old Library', address: '4 Chapel Lane' },
  { name: 'North Park Bandstand', address: 'North Park, Gate B' },
]

const titles = [
  'Release party',
  'Open rehearsal',
  'Community breakfast',
  'Jazz evening',
  'Poetry reading',
  'Board game night',
  'Repair café',
  'Lecture: city rivers',
  'Chess tournament',
  'Winter market',
]

/** 32 events, one every three days from 2026-12-01 at 19:30 UTC, spread over four locations. */
export function sampleLocations(): ImportLocation[] {
  const start = Date.UTC(2026, 11, 1, 19, 30)
  return places.map((place, p) => ({
    ...place,
    events: Array.from({ length: 8 }, (_, i) => {
      const n = i * places.length + p
      return { title: `${titles[n % titles.length]} #${n + 1}`, date: start + n * 3 * 86_400_000 }
    }),
  }))
}
