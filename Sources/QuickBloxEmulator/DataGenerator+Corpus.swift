/// Text the generator draws from: several scripts, diacritics, emoji, links, contact details,
/// and punctuation that breaks naive full-text queries.
extension DataGenerator {
    static let fragments: [String] = [
        "Hi guys", "sure, I can wait", "Can you send me the invoice?", "I need a refund for order 4411",
        "Meeting moved to 3pm", "lol 😂", "See https://example.com/docs?id=42&lang=en for details",
        "mail me at alice.martin@example.com", "call me on +1 (555) 010-2233", "C++ vs. C# — which one?",
        "\"quoted\" text and 'single' quotes", "NEAR the end AND/OR not", "50% off -- today only!!!",
        "pay by wire transfer to account DE44 5001 0517 5407 3249 31", "send me a gift card code",
        "double your money with this crypto investment", "where is my package?", "thanks a lot 🙏",
        "ok", "👍", "🎉🎉🎉", "❤️", "brb", "can't talk now -- in a meeting", "password reset link: https://bit.ly/3xY",
        "Grüße aus München! Das Straßenfest war großartig.", "Können wir morgen über die Rückerstattung sprechen?",
        "Ça va ? On se voit à l'école près du café.", "Été très chargé, désolé !", "Jalapeño y piñata en la fiesta",
        "¿Dónde está la reunión? Mañana a las 10.", "Привет! Как дела? Жду ответа.", "Оплата прошла успешно",
        "Καλημέρα σε όλους", "مرحبا، كيف حالك؟", "你好，明天见！", "我们在北京开会", "こんにちは、お元気ですか？",
        "नमस्ते, आप कैसे हैं?", "Cảm ơn bạn rất nhiều", "Zoë's naïve café façade", "Søren og Åse går på tur",
        "(unbalanced parenthesis", "stars * and carets ^ and col:ons", "tabs\tand\nnew lines",
        "100 € or 90 £?", "email bob_smith+chat@example.org or visit www.example.net",
        "meet at 5 — bring the docs", "Ok!! see you", "check this out: https://youtu.be/dQw4w9WgXcQ",
        "my number is 555 0199, text me", "urgent: verify your account at http://secure-login.example.com",
        "Happy birthday 🎂🥳", "Wi-Fi password is hunter2", "dm me", "who's in for pizza 🍕?",
    ]

    static let fullNames: [String] = [
        "Alice Martin", "Bob Smith", "Zoë Müller", "José Álvarez", "Олег Иванов", "李娜", "Søren Kierkegaard",
        "Αλέξανδρος Παππάς", "محمد علي", "Ngọc Trâm", "Priya Sharma", "Chloé Dubois", "Yuki Tanaka",
        "Łukasz Kowalski", "Ana Lúcia", "Ömer Yılmaz", "Fatima Zahra", "Liam O'Connor", "Emma Johansson",
        "Hiroshi Sato",
    ]

    static let groupNames: [String] = [
        "New Year party", "Équipe produit", "Команда поддержки", "家族群", "Book club 📚", "Weekend hikers",
        "Project \"Apollo\"", "Sales — EMEA", "Parents & teachers", "Gaming night 🎮",
    ]

    static let publicNames: [String] = ["Public lobby", "Announcements", "Marketplace", "Help & Support", "Off-topic"]

    static let attachmentKinds: [(type: String, ext: String, contentType: String, size: ClosedRange<Int>)] = [
        // Sizes as chat apps send them (compressed photos, short clips, voice notes, documents);
        // the rare large files come from --large-file-rate.
        ("image", "jpg", "image/jpeg", 20_000...900_000),
        ("video", "mp4", "video/mp4", 300_000...6_000_000),
        ("audio", "m4a", "audio/mp4", 5_000...600_000),
        ("file", "pdf", "application/pdf", 5_000...2_500_000),
        ("location", "", "", 0...0),
    ]
}
