import Testing

@testable import keep_bench

@Suite("keep-bench --update: the tables a document shows are a run's")
struct MarkedRegionTests {
    @Test("the report replaces exactly the lines between the markers, its headings moved under the document's")
    func replacesTheRegion() throws {
        let document = """
            # Performance
            Words kept.
            ## Every table of the run
            <!-- keep-bench tables: begin -->
            old table, pasted by hand
            <!-- keep-bench tables: end -->
            ## After
            Kept too.

            """
        let report = "# keep-bench\n\n## history\n\n| a |\n"
        let updated = try MarkedRegion.replacing(in: document, with: report, path: "doc.md")
        #expect(
            updated == """
                # Performance
                Words kept.
                ## Every table of the run
                <!-- keep-bench tables: begin -->

                ### keep-bench

                #### history

                | a |

                <!-- keep-bench tables: end -->
                ## After
                Kept too.

                """)
        #expect(try MarkedRegion.replacing(in: updated, with: report, path: "doc.md") == updated, "a rerun is stable")
    }

    @Test("a document without one begin marker followed by one end marker is refused, naming the file")
    func refusesWithoutMarkers() {
        let begin = MarkedRegion.begin, end = MarkedRegion.end
        for document in [
            "no markers", "\(end)\n\(begin)", "\(begin)\nonly a begin", "\(begin)\n\(end)\n\(begin)\n\(end)",
        ] {
            #expect(throws: BenchError.self, "\(document)") {
                try MarkedRegion.replacing(in: document, with: "# r", path: "docs/x.md")
            }
        }
        do {
            _ = try MarkedRegion.replacing(in: "none", with: "", path: "docs/x.md")
        } catch {
            #expect(error.code == .usage && error.description.contains("docs/x.md"))
        }
    }
}
