// keep-torture: a test tool, not part of Keep and not a product. The kill -9 torture tests
// (Tests/KeepTortureTests) start it, let it write, and kill it at random moments.
//
//   keep-torture files ROOT WRITER GENERATION SEED     overwrite keys k0…k7 of a FileStore at ROOT
//   keep-torture in-place ROOT WRITER GENERATION SEED  the same, written in place: the broken
//                                                       writer the torture must catch
//   keep-torture appends ROOT WRITER GENERATION SEED   append lines to keys a0…a3 of a FileStore
//                                                       at ROOT, now and then writing one whole
//   keep-torture naive-appends ROOT WRITER GENERATION SEED  the same, appended without a lock or
//                                                       a cut: the broken appender the torture
//                                                       must catch
//   keep-torture kept DATABASE WRITER GENERATION SEED  insert, update and delete sealed rows
//   keep-torture index ROOT WRITER GENERATION SEED     build the chat index of the chats at ROOT
//                                                       again and again, a small batch at a time
//
// It writes until it is killed, and reports on standard output (see Progress): `ready`
// once its store is open, `begin …` before each write and `ack …` once it returned. Values
// are MarkedValue's, whole only when every byte is the writer's; sequence numbers start at
// GENERATION × 1,000,000, so no two runs write the same value. On an error it prints
// `error …` and exits 1; on bad arguments it exits 2.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count == 6, let writer = Int(arguments[3]), let generation = Int(arguments[4]),
    let seed = UInt64(arguments[5])
else {
    print("usage: keep-torture files|in-place|appends|naive-appends|kept|index PATH WRITER GENERATION SEED")
    exit(2)
}
let run = TortureRun(path: arguments[2], writer: writer, generation: generation, seed: seed)
switch arguments[1] {
case "files": await FileWriter.run(run, inPlace: false)
case "in-place": await FileWriter.run(run, inPlace: true)
case "appends": await AppendWriter.run(run, naive: false)
case "naive-appends": await AppendWriter.run(run, naive: true)
case "kept": await KeptWriter.run(run)
case "index": await IndexWriter.run(run)
default:
    print("usage: keep-torture files|in-place|appends|naive-appends|kept|index PATH WRITER GENERATION SEED")
    exit(2)
}
