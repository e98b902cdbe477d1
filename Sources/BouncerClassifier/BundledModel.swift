/// The model Bouncer ships: `toxicity` in English, trained by `scripts/train-bundled-model.sh`
/// (docs/HARM_SCORES.md says from what, and how well it scores). Embedded in the binary, so it
/// needs no file at run time.
public enum BundledModel {
    public static let model: HarmModel = {
        do {
            return try ModelFile.decode(EmbeddedFiles.toxicity_en_bouncer_model)
        } catch {
            // The file is checked in and read by the tests: a build that cannot read it is broken.
            fatalError("the bundled model cannot be read: \(error)")
        }
    }()
}
