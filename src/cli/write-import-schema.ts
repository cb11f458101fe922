// `npm run schema`: writes the JSON Schema of the import format (docs/import.schema.json) from
// its TypeBox definition. A unit test fails when the committed file and the definition disagree.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { importSchemaPath, importSchemaText } from '../contract/import-file.ts'

const target = fileURLToPath(new URL(`../../${importSchemaPath}`, import.meta.url))
writeFileSync(target, importSchemaText())
process.stdout.write(`wrote ${importSchemaPath}\n`)
